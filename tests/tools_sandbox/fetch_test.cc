// fetch against a tiny HTTP server on 127.0.0.1 (port 0).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "sandbox_fixture.h"

namespace {

using namespace twtest;
using namespace std::chrono_literals;

class Server {
 public:
  Server() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    listen(fd_, 16);
    th_ = std::thread([this] { loop(); });
  }
  // Joins every connection thread: a detached one could still be sending
  // (/chunked-big after the client hung up) when the test's Server is gone.
  ~Server() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    th_.join();
    close(fd_);
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (int c : open_) shutdown(c, SHUT_RDWR);
    }
    for (auto& t : conns_) t.join();
  }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  void loop() {
    while (!stop_) {
      int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      {
        std::lock_guard<std::mutex> lock(mu_);
        open_.insert(c);
      }
      conns_.emplace_back([c, this] {
        serve(c);
        std::lock_guard<std::mutex> lock(mu_);
        open_.erase(c);
        close(c);
      });
    }
  }
  static void send_all(int c, const std::string& s) {
    size_t off = 0;
    while (off < s.size()) {
      ssize_t n = send(c, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
  }
  void serve(int c) {
    std::string req;
    char buf[4096];
    while (req.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      req.append(buf, static_cast<size_t>(n));
    }
    std::string path = req.substr(4, req.find(' ', 4) - 4);
    auto reply = [&](int code, const std::string& extra, const std::string& body) {
      send_all(c, "HTTP/1.1 " + std::to_string(code) +
                      " X\r\nContent-Type: text/plain\r\nContent-Length: " +
                      std::to_string(body.size()) + "\r\nConnection: close\r\n" + extra + "\r\n" +
                      body);
    };
    if (path == "/hello")
      reply(200, "", "hello world");
    else if (path == "/big")
      reply(200, "", std::string(5 << 20, 'b'));
    else if (path == "/chunked-big") {
      send_all(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n");
      for (int i = 0; i < 200 && !stop_; ++i) send_all(c, std::string(64 * 1024, 'c'));
    } else if (path == "/slow") {
      for (int i = 0; i < 60 && !stop_; ++i) std::this_thread::sleep_for(50ms);
      reply(200, "", "late");
    } else if (path == "/to-file")
      reply(302, "Location: file:///etc/passwd\r\n", "");
    else if (path == "/binary")
      reply(200, "", std::string("\x89PNG\0\0\0", 7));
    else
      reply(404, "", "not found");
  }
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread th_;
  std::vector<std::thread> conns_;  // the accept thread's, then the destructor's once it is joined
  std::mutex mu_;
  std::set<int> open_;  // connections still being served: the destructor shuts them down
};

struct FetchTest : ::testing::Test {
  Tree tree;
  Server server;
  toolwire::tools::BuiltinOptions opt;
  void SetUp() override {
    opt.workspace = tree.ws.string();
    opt.enabled = {"fetch"};
    opt.fetch_allow_private_networks = true;  // the test server is on loopback
    opt.fetch_max_bytes = 100000;
    opt.fetch_timeout = 1000ms;
  }
  toolwire::tools::ToolOutput fetch(const std::string& url) {
    return make_tools(opt).call("fetch", {{"url", url}});
  }
};

TEST_F(FetchTest, Get) {
  auto o = fetch(server.url("/hello"));
  EXPECT_FALSE(o.is_error) << text(o);
  EXPECT_EQ(text(o), "HTTP 200\ncontent-type: text/plain\n\nhello world");
}

TEST_F(FetchTest, LoopbackRefusedByDefault) {
  opt.fetch_allow_private_networks = false;
  auto o = fetch(server.url("/hello"));
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(text(o).find("private/loopback address 127.0.0.1 refused"), std::string::npos)
      << text(o);
  o = fetch("http://localhost:" + server.url("/hello").substr(17));
  EXPECT_TRUE(o.is_error) << text(o);
}

TEST_F(FetchTest, OnlyHttpSchemes) {
  for (const char* u : {"file:///etc/passwd", "ftp://127.0.0.1/x", "gopher://127.0.0.1/",
                        "dict://127.0.0.1/", "FILE:///etc/passwd"}) {
    auto o = fetch(u);
    EXPECT_TRUE(o.is_error) << u;
    EXPECT_NE(text(o).find("only http and https"), std::string::npos) << u << ": " << text(o);
  }
  EXPECT_TRUE(fetch("not a url").is_error);
}

TEST_F(FetchTest, RedirectToFileRefused) {
  auto o = fetch(server.url("/to-file"));
  EXPECT_TRUE(o.is_error);
  EXPECT_EQ(text(o).find("root:"), std::string::npos) << text(o);
}

TEST_F(FetchTest, SizeCap) {
  for (const char* p : {"/big", "/chunked-big"}) {
    auto o = fetch(server.url(p));
    std::string t = text(o);
    EXPECT_LT(t.size(), 100000u + 200u) << p;
    EXPECT_NE(t.find("100000-byte cap"), std::string::npos)
        << p << ": " << t.substr(0, 100) << "..." << t.substr(t.size() > 100 ? t.size() - 100 : 0);
  }
}

TEST_F(FetchTest, TimeCap) {
  auto t0 = std::chrono::steady_clock::now();
  auto o = fetch(server.url("/slow"));
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(text(o).find("timed out"), std::string::npos) << text(o);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2500ms);
}

TEST_F(FetchTest, BinaryAndErrors) {
  EXPECT_NE(text(fetch(server.url("/binary"))).find("[binary body, 7 bytes"), std::string::npos);
  auto o = fetch(server.url("/missing"));
  EXPECT_TRUE(o.is_error);
  EXPECT_NE(text(o).find("HTTP 404"), std::string::npos);
}

}  // namespace
