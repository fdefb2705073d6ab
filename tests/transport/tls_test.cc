// TLS peers are verified: against the system CAs by default (a self-signed
// server is refused, and not retried), against HttpClientOptions::ca_file
// when given. The TLS server is `openssl s_server` on 127.0.0.1, port 0.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "collector.h"

using namespace tw_test;

namespace {

class OpensslServer {
 public:
  // Creates a self-signed certificate for 127.0.0.1 and starts s_server.
  bool start() {
    char tmpl[] = "/tmp/toolwire_tls_XXXXXX";
    if (!mkdtemp(tmpl)) return false;
    dir_ = tmpl;
    std::string gen =
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout " + dir_ + "/k.pem -out " + dir_ +
        "/c.pem -days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1";
    if (std::system(gen.c_str()) != 0) return false;
    int out[2];
    if (pipe(out) != 0) return false;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(out[1], 1);
      dup2(out[1], 2);
      close(out[0]);
      std::string cert = dir_ + "/c.pem", key = dir_ + "/k.pem";
      execlp("openssl", "openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", cert.c_str(),
             "-key", key.c_str(), "-www", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(out[1]);
    FILE* f = fdopen(out[0], "r");
    char line[512];
    while (f && std::fgets(line, sizeof line, f)) {
      std::string s(line);
      size_t p = s.find("ACCEPT 127.0.0.1:");
      if (p != std::string::npos) {
        port_ = std::atoi(s.c_str() + p + 17);
        break;
      }
    }
    out_ = f;
    return port_ > 0;
  }
  ~OpensslServer() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      waitpid(pid_, nullptr, 0);
    }
    if (out_) fclose(out_);
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_) + "/"; }
  std::string ca_file() const { return dir_ + "/c.pem"; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  FILE* out_ = nullptr;
  std::string dir_;
};

}  // namespace

TEST(HttpTls, SelfSignedServerIsRefusedByDefaultAndNotRetried) {
  OpensslServer server;
  if (!server.start()) GTEST_SKIP() << "openssl s_server not available";
  HttpClient client;
  HttpRequest req = get(server.url());
  req.retry = fast_retries(3);
  req.headers.add("authorization", "Bearer sk-TLS-SECRET-123");
  Collector c;
  client.start(req, c.callbacks());
  ASSERT_TRUE(c.wait_done());
  ASSERT_FALSE(c.result.ok());
  EXPECT_EQ(c.result.error().code, ErrorCode::unavailable);
  EXPECT_EQ(c.stats.attempts, 1);  // a certificate problem is not transient
  EXPECT_NE(c.result.error().message.find("certificate"), std::string::npos)
      << c.result.error().message;
  EXPECT_EQ(c.result.error().message.find("SECRET"), std::string::npos);
}

TEST(HttpTls, TrustedThroughCaFileSucceeds) {
  OpensslServer server;
  if (!server.start()) GTEST_SKIP() << "openssl s_server not available";
  HttpClientOptions options;
  options.ca_file = server.ca_file();
  HttpClient client(options);
  auto r = client.fetch(get(server.url()));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->status, 200);
  EXPECT_FALSE(r->body.empty());
}
