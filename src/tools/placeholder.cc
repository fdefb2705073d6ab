// placeholder so the library has a source until the tools land
