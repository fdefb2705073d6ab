// toolwire/libcurl/api.h — libcurl, opened the first time it is called.
//
//   CURL* e = libcurl::easy_init();
//   libcurl::easy_setopt(e, CURLOPT_URL, url.c_str());
//   libcurl::easy_setopt(e, CURLOPT_WRITEFUNCTION, &on_bytes);
//
// Linked normally, libcurl brings about twenty libraries into every process
// (GnuTLS, Kerberos, LDAP, RTMP, SSH2, ...: about 3 MB resident, and their
// constructors run at start) although the gateway's hot path never calls it:
// its upstreams go through AsioHttpClient. Here libcurl is opened with
// dlopen() by the first call (HttpClient, the `fetch` tool, the OTLP
// exporter, `toolwire chat`), so a process that makes no curl transfer never
// maps it. The functions are libcurl's, with `curl_` dropped; libcurl's own
// types, constants and callbacks are used as they are. libcurl is a declared
// dependency of the package: one that cannot be opened stops the process
// with a message naming it.
#pragma once

#include <curl/curl.h>

#include <ctime>

namespace toolwire::libcurl {

CURLcode global_init(long flags);
const char* easy_strerror(CURLcode code);
const char* multi_strerror(CURLMcode code);
void free(void* p);
time_t getdate(const char* text, const time_t* unused);

CURL* easy_init();
void easy_cleanup(CURL* easy);
void easy_reset(CURL* easy);
CURLcode easy_perform(CURL* easy);
CURLcode easy_pause(CURL* easy, int bitmask);

// curl_easy_setopt's one argument by its kind: a long (curl_off_t is long on
// this platform), an object pointer (strings, user data, handles) or a
// callback.
CURLcode easy_setopt_long(CURL* easy, CURLoption option, long value);
CURLcode easy_setopt_pointer(CURL* easy, CURLoption option, const void* value);
CURLcode easy_setopt_callback(CURL* easy, CURLoption option, void (*value)());
inline CURLcode easy_setopt(CURL* easy, CURLoption option, long value) {
  return easy_setopt_long(easy, option, value);
}
inline CURLcode easy_setopt(CURL* easy, CURLoption option, int value) {
  return easy_setopt_long(easy, option, value);
}
inline CURLcode easy_setopt(CURL* easy, CURLoption option, const void* value) {
  return easy_setopt_pointer(easy, option, value);
}
template <class R, class... A>
CURLcode easy_setopt(CURL* easy, CURLoption option, R (*callback)(A...)) {
  return easy_setopt_callback(easy, option, reinterpret_cast<void (*)()>(callback));
}
// curl_easy_getinfo: every CURLINFO writes through a pointer.
CURLcode easy_getinfo_pointer(CURL* easy, CURLINFO info, void* out);
template <class T>
CURLcode easy_getinfo(CURL* easy, CURLINFO info, T* out) {
  return easy_getinfo_pointer(easy, info, static_cast<void*>(out));
}

curl_slist* slist_append(curl_slist* list, const char* line);
void slist_free_all(curl_slist* list);

CURLM* multi_init();
CURLMcode multi_cleanup(CURLM* multi);
CURLMcode multi_add_handle(CURLM* multi, CURL* easy);
CURLMcode multi_remove_handle(CURLM* multi, CURL* easy);
CURLMcode multi_socket_action(CURLM* multi, curl_socket_t s, int ev_bitmask, int* running_handles);
CURLMsg* multi_info_read(CURLM* multi, int* msgs_in_queue);
CURLMcode multi_assign(CURLM* multi, curl_socket_t s, void* sockp);
CURLMcode multi_setopt_long(CURLM* multi, CURLMoption option, long value);
CURLMcode multi_setopt_pointer(CURLM* multi, CURLMoption option, const void* value);
CURLMcode multi_setopt_callback(CURLM* multi, CURLMoption option, void (*value)());
inline CURLMcode multi_setopt(CURLM* multi, CURLMoption option, long value) {
  return multi_setopt_long(multi, option, value);
}
inline CURLMcode multi_setopt(CURLM* multi, CURLMoption option, int value) {
  return multi_setopt_long(multi, option, value);
}
inline CURLMcode multi_setopt(CURLM* multi, CURLMoption option, const void* value) {
  return multi_setopt_pointer(multi, option, value);
}
template <class R, class... A>
CURLMcode multi_setopt(CURLM* multi, CURLMoption option, R (*callback)(A...)) {
  return multi_setopt_callback(multi, option, reinterpret_cast<void (*)()>(callback));
}

CURLU* url();
void url_cleanup(CURLU* handle);
CURLUcode url_set(CURLU* handle, CURLUPart what, const char* part, unsigned int flags);
CURLUcode url_get(CURLU* handle, CURLUPart what, char** part, unsigned int flags);

}  // namespace toolwire::libcurl
