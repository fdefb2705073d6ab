// HandlerFlush: a gateway worker's loop. It runs the worker's io_context one
// handler at a time and after each writes the output the handler queued on
// its sessions (Session::queue): a handler's writes go out together once it
// returns, as a posted flush would have them, without the scheduler pass
// (and epoll_wait) a post costs. Sessions on a thread that does not run
// this loop post their flushes.
#pragma once

#include <boost/asio/io_context.hpp>
#include <memory>

namespace toolwire::gateway::http {

class Session;

class HandlerFlush {
 public:
  static void run(boost::asio::io_context& ioc);
  static bool active();  // this thread is in run()
  static void add(std::shared_ptr<Session> s);
};

}  // namespace toolwire::gateway::http
