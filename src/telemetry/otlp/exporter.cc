// The batching sender: a bounded queue of finished traces, one thread that
// takes it in batches and POSTs each over libcurl (transport::HttpClient,
// its own loop thread), retried by the transport's policy.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "telemetry/otlp/encode.h"
#include "telemetry/otlp/span_map.h"
#include "toolwire/telemetry/otlp_exporter.h"
#include "toolwire/transport/http_client.h"

namespace toolwire::telemetry {

using Clock = std::chrono::steady_clock;

struct OtlpExporter::Impl {
  explicit Impl(OtlpOptions o) : options(std::move(o)) {}

  OtlpOptions options;
  std::mutex mu;
  std::condition_variable cv;  // the queue, a flush, a stop, a POST's end
  std::deque<Trace> queue;
  size_t queued_spans = 0;  // each trace: its spans and its root
  Clock::time_point oldest_at;
  bool in_flight = false;
  bool flush_asked = false;
  bool stopping = false;
  Clock::time_point stop_by;
  std::atomic<uint64_t> exported{0}, dropped_queue{0}, dropped_failed{0}, failures{0};
  // After mu and cv: destroyed first, its pending callbacks still find them.
  transport::HttpClient client;
  std::thread sender;

  void run();
  bool post(std::string body);
};

// POSTs one batch and waits for its end; while stopping, only until stop_by
// (then the call is cancelled).
bool OtlpExporter::Impl::post(std::string body) {
  transport::HttpRequest req;
  req.method = "POST";
  req.url = options.url;
  req.headers.add("content-type", "application/x-protobuf");
  for (const auto& [k, v] : options.headers) req.headers.add(k, v);
  req.body = std::move(body);
  req.deadline = options.timeout;
  req.connect_timeout = std::min(options.timeout, transport::Millis{5000});
  req.retry.max_attempts = options.max_attempts;
  req.retry.initial_backoff = transport::Millis{200};
  req.retry.max_backoff = transport::Millis{2000};
  req.retry.max_retry_after = transport::Millis{5000};
  struct Done {
    bool done = false;
    bool ok = false;
    int status = 0;
  };
  auto d = std::make_shared<Done>();
  transport::HttpCall call = client.start(
      std::move(req),
      {.on_head =
           [d](const transport::HttpResponseHead& h) {
             d->status = h.status;  // read under mu after on_complete, on the same thread
             return true;
           },
       .on_body = [](std::string_view) { return true; },  // a partial-success body: ignored
       .on_complete =
           [this, d](const Status& s, const transport::HttpStats&) {
             std::lock_guard<std::mutex> lk(mu);
             d->ok = s.ok() && d->status >= 200 && d->status < 300;
             d->done = true;
             cv.notify_all();
           }});
  std::unique_lock<std::mutex> lk(mu);
  while (!d->done) {
    if (!stopping) {
      cv.wait(lk, [&] { return d->done || stopping; });
      continue;
    }
    if (!cv.wait_until(lk, stop_by, [&] { return d->done; })) {
      lk.unlock();
      call.cancel();
      lk.lock();
      cv.wait(lk, [&] { return d->done; });  // cancel() completes it at once
    }
  }
  return d->ok;
}

void OtlpExporter::Impl::run() {
  std::unique_lock<std::mutex> lk(mu);
  for (;;) {
    cv.wait(lk, [&] { return stopping || !queue.empty(); });
    if (queue.empty()) break;  // stopping, nothing left
    // A partial batch waits for more until the interval since its oldest
    // trace has passed (or a flush, or the stop).
    cv.wait_until(lk, oldest_at + options.flush_interval,
                  [&] { return stopping || flush_asked || queued_spans >= options.batch_size; });
    if (stopping && Clock::now() >= stop_by) {
      dropped_failed += queued_spans;  // no time left to send them
      queue.clear();
      queued_spans = 0;
      break;
    }
    std::vector<Trace> batch;
    size_t spans = 0;
    while (!queue.empty() &&
           (batch.empty() || spans + queue.front().spans.size() + 1 <= options.batch_size)) {
      spans += queue.front().spans.size() + 1;
      batch.push_back(std::move(queue.front()));
      queue.pop_front();
    }
    queued_spans -= spans;
    oldest_at = Clock::now();
    in_flight = true;
    lk.unlock();
    std::vector<otlp::OtlpSpan> mapped;
    mapped.reserve(spans);
    for (const auto& t : batch)
      for (auto& s : otlp::map_trace(t)) mapped.push_back(std::move(s));
    batch.clear();
    const bool ok = post(otlp::encode_export_request(mapped, options.service_name));
    if (ok) {
      exported += mapped.size();
    } else {
      failures += 1;
      dropped_failed += mapped.size();
    }
    lk.lock();
    in_flight = false;
    if (queue.empty()) flush_asked = false;
    cv.notify_all();
  }
  in_flight = false;
  cv.notify_all();
}

std::unique_ptr<OtlpExporter> OtlpExporter::start(OtlpOptions options) {
  if (options.batch_size == 0) options.batch_size = 1;
  if (options.max_attempts < 1) options.max_attempts = 1;
  auto impl = std::make_unique<Impl>(std::move(options));
  Impl* p = impl.get();
  p->sender = std::thread([p] { p->run(); });
  return std::unique_ptr<OtlpExporter>(new OtlpExporter(std::move(impl)));
}

OtlpExporter::OtlpExporter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

OtlpExporter::~OtlpExporter() {
  {
    std::lock_guard<std::mutex> lk(impl_->mu);
    impl_->stopping = true;
    impl_->stop_by = Clock::now() + impl_->options.shutdown_timeout;
  }
  impl_->cv.notify_all();
  if (impl_->sender.joinable()) impl_->sender.join();
}

bool OtlpExporter::submit(Trace t) {
  const size_t n = t.spans.size() + 1;
  Impl& m = *impl_;
  bool wake = false;
  {
    std::lock_guard<std::mutex> lk(m.mu);
    if (m.stopping || m.queued_spans + n > m.options.queue_limit) {
      m.dropped_queue += n;
      return false;  // `t` is freed after the lock
    }
    const bool was_empty = m.queue.empty();
    if (was_empty) m.oldest_at = Clock::now();
    m.queued_spans += n;
    m.queue.push_back(std::move(t));
    // Wake the sender only when it has something new to do: a first trace
    // (its interval starts) or a batch that just became full.
    wake = was_empty ||
           (m.queued_spans >= m.options.batch_size && m.queued_spans - n < m.options.batch_size);
  }
  if (wake) m.cv.notify_all();
  return true;
}

bool OtlpExporter::flush(std::chrono::milliseconds within) {
  Impl& m = *impl_;
  std::unique_lock<std::mutex> lk(m.mu);
  m.flush_asked = true;
  m.cv.notify_all();
  return m.cv.wait_for(lk, within, [&] { return m.queue.empty() && !m.in_flight; });
}

OtlpExporter::Counters OtlpExporter::counters() const {
  return {impl_->exported.load(), impl_->dropped_queue.load(), impl_->dropped_failed.load(),
          impl_->failures.load()};
}

const OtlpOptions& OtlpExporter::options() const { return impl_->options; }

}  // namespace toolwire::telemetry
