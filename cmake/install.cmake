# `cmake --install build --prefix P`: the public headers, the static libraries,
# the `toolwire` executable and a CMake package, so that a project outside this
# tree can `find_package(toolwire CONFIG REQUIRED)` and link toolwire::<concern>
# (toolwire::core, toolwire::dialects, ..., one per toolwire_library) or
# toolwire::toolwire (every library). examples/embed is such a project.
include(CMakePackageConfigHelpers)

get_property(toolwire_libraries GLOBAL PROPERTY TOOLWIRE_LIBRARIES)
add_library(toolwire_all INTERFACE)
target_link_libraries(toolwire_all INTERFACE ${toolwire_libraries})
set_target_properties(toolwire_all PROPERTIES EXPORT_NAME toolwire)
install(TARGETS toolwire_all EXPORT toolwire-targets)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/toolwire DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(toolwire_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/toolwire)
install(EXPORT toolwire-targets NAMESPACE toolwire:: DESTINATION ${toolwire_cmake_dir})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/toolwireConfig.cmake.in
                              ${CMAKE_CURRENT_BINARY_DIR}/toolwireConfig.cmake
                              INSTALL_DESTINATION ${toolwire_cmake_dir})
# 0.x: a minor version may break the API.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/toolwireConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/toolwireConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/toolwireConfigVersion.cmake
        DESTINATION ${toolwire_cmake_dir})
