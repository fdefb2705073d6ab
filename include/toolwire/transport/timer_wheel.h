// toolwire/transport/timer_wheel.h — one coarse Asio timer for the many deadlines of one thread.
//
// A gateway request carries three deadlines (the upstream's content idle
// time, its connect/idle time, its total time) and almost never reaches
// one. As Asio timers each cost, per request, a timer service lookup (a
// mutex), a schedule and a cancel (the reactor's mutex each) and a handler
// run for the cancellation. Here arming and cancelling a Deadline is a list
// insert and unlink; the wheel's one Asio timer is set for the next slot
// that holds a deadline, and moved only when an earlier one comes.
//
// Coarse: a deadline fires at the first tick (kTick) at or after its time,
// never before. Thread-confined: one wheel per io_context (an Asio service),
// used only from the one thread that runs that io_context (the gateway's
// workers; AsioClientOptions::one_thread_contexts).
#pragma once

#include <array>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>

namespace toolwire::transport {

class TimerWheel;

namespace detail {
// The links of a circular doubly linked list; a list's head is a bare link.
struct WheelLink {
  WheelLink* prev = nullptr;
  WheelLink* next = nullptr;
};
}  // namespace detail

// One deadline: owned by (a member of) the object it times, armed on a
// wheel, cancelled by its destructor. `fire(owner)` runs on the wheel's
// thread once the time has passed; the Deadline is no longer armed then, so
// the callback may arm it again.
class Deadline : private detail::WheelLink {
 public:
  using Clock = std::chrono::steady_clock;
  using Fire = void (*)(void* owner);

  Deadline() = default;
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;
  ~Deadline() { cancel(); }

  void arm(TimerWheel& wheel, Clock::time_point at, Fire fire, void* owner);
  void cancel();
  bool armed() const { return wheel_ != nullptr; }
  Clock::time_point at() const { return at_; }

 private:
  friend class TimerWheel;
  // Linked into its slot's list, or the wheel's firing list while it fires.
  TimerWheel* wheel_ = nullptr;
  int32_t slot_ = -1;  // -1: on the wheel's firing list
  int64_t tick_ = 0;
  Clock::time_point at_{};
  Fire fire_ = nullptr;
  void* owner_ = nullptr;
};

class TimerWheel : public boost::asio::execution_context::service {
 public:
  using Clock = Deadline::Clock;
  static constexpr std::chrono::milliseconds kTick{10};
  static constexpr int kSlots = 1024;  // 10.24 s a turn; later deadlines wait for their turn

  using key_type = TimerWheel;
  static inline boost::asio::execution_context::id id;

  explicit TimerWheel(boost::asio::io_context& ioc);
  ~TimerWheel() override;

  // The wheel of `ioc`, created at first use (a lookup in Asio's service
  // registry, under its mutex: keep the reference).
  static TimerWheel& of(boost::asio::io_context& ioc);

  size_t size() const { return size_; }

 private:
  friend class Deadline;
  using Link = detail::WheelLink;

  void shutdown() override;
  void add(Deadline& d);
  static void push_back(Link& head, Link& l);
  static void unlink(Link& l);
  void remove(Deadline& d);
  int64_t tick_of(Clock::time_point t) const;       // the first tick at or after t
  int64_t ticks_passed(Clock::time_point t) const;  // the last tick at or before t
  void schedule_from(int64_t after);                // the Asio timer for the next slot in use
  void on_timer(uint64_t generation);
  static Deadline& deadline(Link* l) { return static_cast<Deadline&>(*l); }

  boost::asio::steady_timer timer_;
  Clock::time_point epoch_;
  int64_t cursor_ = 0;       // every tick up to this one has been handled
  int64_t timer_tick_ = -1;  // the tick the Asio timer waits for; -1: none
  uint64_t generation_ = 0;  // of the Asio wait; a replaced wait's handler does nothing
  size_t size_ = 0;
  bool shut_ = false;
  std::array<uint64_t, kSlots / 64> used_{};  // a bit per slot that holds a deadline
  std::array<Link, kSlots> heads_;
  Link firing_;
};

}  // namespace toolwire::transport
