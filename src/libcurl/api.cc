// libcurl through dlopen(): one table of its functions, filled once.
#include "toolwire/libcurl/api.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

namespace toolwire::libcurl {
namespace {

// Debian's libcurl4-openssl (the package's dependency) installs this name.
constexpr const char* kLibrary = "libcurl.so.4";

struct Table {
  CURLcode (*global_init)(long);
  const char* (*easy_strerror)(CURLcode);
  const char* (*multi_strerror)(CURLMcode);
  void (*free)(void*);
  time_t (*getdate)(const char*, const time_t*);
  CURL* (*easy_init)();
  void (*easy_cleanup)(CURL*);
  void (*easy_reset)(CURL*);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_pause)(CURL*, int);
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
  CURLM* (*multi_init)();
  CURLMcode (*multi_cleanup)(CURLM*);
  CURLMcode (*multi_add_handle)(CURLM*, CURL*);
  CURLMcode (*multi_remove_handle)(CURLM*, CURL*);
  CURLMcode (*multi_socket_action)(CURLM*, curl_socket_t, int, int*);
  CURLMsg* (*multi_info_read)(CURLM*, int*);
  CURLMcode (*multi_assign)(CURLM*, curl_socket_t, void*);
  CURLMcode (*multi_setopt)(CURLM*, CURLMoption, ...);
  CURLU* (*url)();
  void (*url_cleanup)(CURLU*);
  CURLUcode (*url_set)(CURLU*, CURLUPart, const char*, unsigned int);
  CURLUcode (*url_get)(const CURLU*, CURLUPart, char**, unsigned int);
};

[[noreturn]] void fail(const char* what) {
  const char* why = dlerror();
  std::fprintf(stderr, "toolwire: libcurl: %s: %s\n", what, why ? why : "unknown error");
  std::abort();
}

template <class F>
void bind(void* lib, F& slot, const char* name) {
  void* p = dlsym(lib, name);
  if (!p) fail(name);
  slot = reinterpret_cast<F>(p);
}

Table open_table() {
  // RTLD_LOCAL: libcurl's symbols stay out of the process's global scope.
  void* lib = dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!lib) fail(kLibrary);
  Table t{};
  bind(lib, t.global_init, "curl_global_init");
  bind(lib, t.easy_strerror, "curl_easy_strerror");
  bind(lib, t.multi_strerror, "curl_multi_strerror");
  bind(lib, t.free, "curl_free");
  bind(lib, t.getdate, "curl_getdate");
  bind(lib, t.easy_init, "curl_easy_init");
  bind(lib, t.easy_cleanup, "curl_easy_cleanup");
  bind(lib, t.easy_reset, "curl_easy_reset");
  bind(lib, t.easy_perform, "curl_easy_perform");
  bind(lib, t.easy_pause, "curl_easy_pause");
  bind(lib, t.easy_setopt, "curl_easy_setopt");
  bind(lib, t.easy_getinfo, "curl_easy_getinfo");
  bind(lib, t.slist_append, "curl_slist_append");
  bind(lib, t.slist_free_all, "curl_slist_free_all");
  bind(lib, t.multi_init, "curl_multi_init");
  bind(lib, t.multi_cleanup, "curl_multi_cleanup");
  bind(lib, t.multi_add_handle, "curl_multi_add_handle");
  bind(lib, t.multi_remove_handle, "curl_multi_remove_handle");
  bind(lib, t.multi_socket_action, "curl_multi_socket_action");
  bind(lib, t.multi_info_read, "curl_multi_info_read");
  bind(lib, t.multi_assign, "curl_multi_assign");
  bind(lib, t.multi_setopt, "curl_multi_setopt");
  bind(lib, t.url, "curl_url");
  bind(lib, t.url_cleanup, "curl_url_cleanup");
  bind(lib, t.url_set, "curl_url_set");
  bind(lib, t.url_get, "curl_url_get");
  return t;  // the library stays open for the life of the process
}

// Filled by the first call from any thread (a function-local static's
// initialisation is thread-safe).
const Table& lib() {
  static const Table t = open_table();
  return t;
}

}  // namespace

CURLcode global_init(long flags) { return lib().global_init(flags); }
const char* easy_strerror(CURLcode code) { return lib().easy_strerror(code); }
const char* multi_strerror(CURLMcode code) { return lib().multi_strerror(code); }
void free(void* p) { lib().free(p); }
time_t getdate(const char* text, const time_t* unused) { return lib().getdate(text, unused); }

CURL* easy_init() { return lib().easy_init(); }
void easy_cleanup(CURL* easy) { lib().easy_cleanup(easy); }
void easy_reset(CURL* easy) { lib().easy_reset(easy); }
CURLcode easy_perform(CURL* easy) { return lib().easy_perform(easy); }
CURLcode easy_pause(CURL* easy, int bitmask) { return lib().easy_pause(easy, bitmask); }

CURLcode easy_setopt_long(CURL* easy, CURLoption option, long value) {
  return lib().easy_setopt(easy, option, value);
}
CURLcode easy_setopt_pointer(CURL* easy, CURLoption option, const void* value) {
  return lib().easy_setopt(easy, option, value);
}
CURLcode easy_setopt_callback(CURL* easy, CURLoption option, void (*value)()) {
  return lib().easy_setopt(easy, option, value);
}
CURLcode easy_getinfo_pointer(CURL* easy, CURLINFO info, void* out) {
  return lib().easy_getinfo(easy, info, out);
}

curl_slist* slist_append(curl_slist* list, const char* line) {
  return lib().slist_append(list, line);
}
void slist_free_all(curl_slist* list) { lib().slist_free_all(list); }

CURLM* multi_init() { return lib().multi_init(); }
CURLMcode multi_cleanup(CURLM* multi) { return lib().multi_cleanup(multi); }
CURLMcode multi_add_handle(CURLM* multi, CURL* easy) { return lib().multi_add_handle(multi, easy); }
CURLMcode multi_remove_handle(CURLM* multi, CURL* easy) {
  return lib().multi_remove_handle(multi, easy);
}
CURLMcode multi_socket_action(CURLM* multi, curl_socket_t s, int ev_bitmask, int* running_handles) {
  return lib().multi_socket_action(multi, s, ev_bitmask, running_handles);
}
CURLMsg* multi_info_read(CURLM* multi, int* msgs_in_queue) {
  return lib().multi_info_read(multi, msgs_in_queue);
}
CURLMcode multi_assign(CURLM* multi, curl_socket_t s, void* sockp) {
  return lib().multi_assign(multi, s, sockp);
}
CURLMcode multi_setopt_long(CURLM* multi, CURLMoption option, long value) {
  return lib().multi_setopt(multi, option, value);
}
CURLMcode multi_setopt_pointer(CURLM* multi, CURLMoption option, const void* value) {
  return lib().multi_setopt(multi, option, value);
}
CURLMcode multi_setopt_callback(CURLM* multi, CURLMoption option, void (*value)()) {
  return lib().multi_setopt(multi, option, value);
}

CURLU* url() { return lib().url(); }
void url_cleanup(CURLU* handle) { lib().url_cleanup(handle); }
CURLUcode url_set(CURLU* handle, CURLUPart what, const char* part, unsigned int flags) {
  return lib().url_set(handle, what, part, flags);
}
CURLUcode url_get(CURLU* handle, CURLUPart what, char** part, unsigned int flags) {
  return lib().url_get(handle, what, part, flags);
}

}  // namespace toolwire::libcurl
