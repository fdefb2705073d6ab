#include "gateway/http/handler_flush.h"

#include <vector>

#include "gateway/http/session.h"

namespace toolwire::gateway::http {

namespace {
// The sessions given output by the handler running now; null off run().
thread_local std::vector<std::shared_ptr<Session>>* t_pending = nullptr;
}  // namespace

bool HandlerFlush::active() { return t_pending != nullptr; }

void HandlerFlush::add(std::shared_ptr<Session> s) { t_pending->push_back(std::move(s)); }

// A flush may start another answer that queues more: until none is left.
void HandlerFlush::run(boost::asio::io_context& ioc) {
  std::vector<std::shared_ptr<Session>> pending, flushing;
  t_pending = &pending;
  auto drain = [&] {
    while (!pending.empty()) {
      flushing.swap(pending);
      for (auto& s : flushing) s->flush_now();
      flushing.clear();
    }
  };
  while (ioc.run_one()) drain();
  drain();
  t_pending = nullptr;
}

}  // namespace toolwire::gateway::http
