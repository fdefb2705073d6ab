#include "toolwire/transport/timer_wheel.h"

#include <algorithm>
#include <bit>
#include <boost/asio/io_context.hpp>

namespace toolwire::transport {

namespace asio = boost::asio;

// ---- Deadline ----------------------------------------------------------------

void Deadline::arm(TimerWheel& wheel, Clock::time_point at, Fire fire, void* owner) {
  cancel();
  at_ = at;
  fire_ = fire;
  owner_ = owner;
  wheel_ = &wheel;
  wheel.add(*this);
}

void Deadline::cancel() {
  if (wheel_) wheel_->remove(*this);
}

// ---- TimerWheel --------------------------------------------------------------

TimerWheel::TimerWheel(asio::io_context& ioc)
    : asio::execution_context::service(ioc), timer_(ioc), epoch_(Clock::now()) {
  for (Link& h : heads_) h.prev = h.next = &h;
  firing_.prev = firing_.next = &firing_;
}

TimerWheel::~TimerWheel() { shutdown(); }

// Not cached per thread: an io_context's address may be a later one's
// (callers keep the reference instead, for the life of a call).
TimerWheel& TimerWheel::of(asio::io_context& ioc) { return asio::use_service<TimerWheel>(ioc); }

// The io_context is going away: every deadline is dropped, unfired (its
// owner's destructor, run later as the io_context destroys its handlers,
// finds it unarmed).
void TimerWheel::shutdown() {
  if (shut_) return;
  shut_ = true;
  for (Link& h : heads_)
    while (h.next != &h) remove(deadline(h.next));
  while (firing_.next != &firing_) remove(deadline(firing_.next));
  timer_tick_ = -1;
  ++generation_;
}

void TimerWheel::push_back(Link& head, Link& l) {
  l.prev = head.prev;
  l.next = &head;
  head.prev->next = &l;
  head.prev = &l;
}

void TimerWheel::unlink(Link& l) {
  l.prev->next = l.next;
  l.next->prev = l.prev;
  l.prev = l.next = nullptr;
}

namespace {
constexpr int64_t kTickCount =
    std::chrono::duration_cast<Deadline::Clock::duration>(TimerWheel::kTick).count();
// Ten years of ticks: a deadline further off is kept there (it never fires).
constexpr int64_t kMaxTicks = int64_t{10} * 365 * 24 * 3600 * 1000 / TimerWheel::kTick.count();
}  // namespace

int64_t TimerWheel::tick_of(Clock::time_point t) const {
  if (t <= epoch_) return 0;
  if (t - epoch_ > kMaxTicks * TimerWheel::kTick) return kMaxTicks;
  return ((t - epoch_).count() + kTickCount - 1) / kTickCount;
}

int64_t TimerWheel::ticks_passed(Clock::time_point t) const {
  return t <= epoch_ ? 0 : (t - epoch_).count() / kTickCount;
}

void TimerWheel::add(Deadline& d) {
  if (shut_) {  // no thread will run this io_context again: the deadline never fires
    d.wheel_ = nullptr;
    return;
  }
  // Never in a slot already handled: a deadline in the past fires at the next tick.
  d.tick_ = std::max(tick_of(d.at_), cursor_ + 1);
  const int slot = static_cast<int>(d.tick_ % kSlots);
  d.slot_ = slot;
  push_back(heads_[static_cast<size_t>(slot)], d);
  used_[static_cast<size_t>(slot) / 64] |= uint64_t{1} << (slot % 64);
  ++size_;
  // When the Asio timer must come for it: at its tick or, for a deadline
  // past this turn of the wheel, by the turn's end at the latest (its slot
  // is visited on the way, and it waits there for its own turn).
  const int64_t visit = std::min(d.tick_, cursor_ + kSlots);
  if (timer_tick_ < 0 || visit < timer_tick_) {
    timer_tick_ = visit;
    timer_.expires_at(epoch_ + Clock::duration(visit * kTickCount));
    timer_.async_wait([this, gen = ++generation_](boost::system::error_code) { on_timer(gen); });
  }
}

void TimerWheel::remove(Deadline& d) {
  unlink(d);
  if (d.slot_ >= 0) {
    const auto slot = static_cast<size_t>(d.slot_);
    if (heads_[slot].next == &heads_[slot]) used_[slot / 64] &= ~(uint64_t{1} << (slot % 64));
  }
  d.wheel_ = nullptr;
  --size_;
  // The Asio timer stays as it is: when it fires early, it finds nothing due
  // and moves on to the next slot in use (cheaper than a cancel per removal).
}

// The Asio timer for the next slot in use after tick `after`, or none.
void TimerWheel::schedule_from(int64_t after) {
  timer_tick_ = -1;
  if (size_ == 0) return;
  // The first set bit at or after slot (after + 1), going round once.
  const int64_t start = after + 1;
  for (int64_t step = 0; step < kSlots;) {
    const int slot = static_cast<int>((start + step) % kSlots);
    uint64_t word = used_[static_cast<size_t>(slot) / 64] >> (slot % 64);
    if (word != 0) {
      const int64_t next = start + step + std::countr_zero(word);
      timer_tick_ = next;
      timer_.expires_at(epoch_ + Clock::duration(next * kTickCount));
      timer_.async_wait([this, gen = ++generation_](boost::system::error_code) { on_timer(gen); });
      return;
    }
    step += 64 - slot % 64;
  }
}

void TimerWheel::on_timer(uint64_t generation) {
  if (generation != generation_ || shut_) return;  // replaced by an earlier wait
  // Every tick whose time has fully come; a deadline is in the first tick
  // at or after its time, so all of theirs are due.
  const int64_t last = std::max(cursor_, ticks_passed(Clock::now()));
  const int64_t from = cursor_ + 1;
  const int64_t to = std::min(last, cursor_ + kSlots);  // each slot once per call
  for (int64_t t = from; t <= to; ++t) {
    const auto slot = static_cast<size_t>(t % kSlots);
    if ((used_[slot / 64] >> (slot % 64) & 1) == 0) continue;
    Link& h = heads_[slot];
    for (Link* l = h.next; l != &h;) {
      Deadline& d = deadline(l);
      l = l->next;
      if (d.tick_ > last) continue;  // a later turn of the wheel
      unlink(d);
      d.slot_ = -1;
      push_back(firing_, d);
    }
    if (h.next == &h) used_[slot / 64] &= ~(uint64_t{1} << (slot % 64));
  }
  cursor_ = std::max(cursor_, last);
  // Fired one at a time from the firing list: a callback may cancel or
  // re-arm any deadline, this one or another about to fire.
  while (firing_.next != &firing_) {
    Deadline& d = deadline(firing_.next);
    remove(d);
    d.fire_(d.owner_);
  }
  schedule_from(cursor_);
}

}  // namespace toolwire::transport
