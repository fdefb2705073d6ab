// TimerWheel: deadlines fire at or after their time (never before, at most
// about a tick late on an idle loop), in time order; a cancelled or
// destroyed one never fires; a callback may cancel or re-arm any; one past a
// turn of the wheel waits for its own turn; the io_context going away drops
// what is armed. Every wait is bounded by run_for.
#include "toolwire/transport/timer_wheel.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>
#include <vector>

using toolwire::transport::Deadline;
using toolwire::transport::TimerWheel;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace {

// A deadline that records when it fired and in which order.
struct Probe {
  Deadline dl;
  std::vector<int>* order = nullptr;
  int id = 0;
  int fired = 0;
  Clock::time_point when{};

  void arm(TimerWheel& w, Clock::time_point at) {
    dl.arm(
        w, at,
        [](void* p) {
          auto* self = static_cast<Probe*>(p);
          ++self->fired;
          self->when = Clock::now();
          if (self->order) self->order->push_back(self->id);
        },
        this);
  }
};

// Runs `ioc` until `done()` or `limit` has passed.
template <class F>
void run_until(boost::asio::io_context& ioc, F done, milliseconds limit = milliseconds(3000)) {
  const auto end = Clock::now() + limit;
  while (!done() && Clock::now() < end) {
    ioc.restart();
    ioc.run_for(milliseconds(20));
  }
}

}  // namespace

TEST(TimerWheel, ADeadlineFiresAtOrAfterItsTimeAndOnlyOnce) {
  boost::asio::io_context ioc(1);
  TimerWheel& wheel = TimerWheel::of(ioc);
  EXPECT_EQ(&wheel, &TimerWheel::of(ioc));  // one per io_context
  Probe p;
  const auto at = Clock::now() + milliseconds(60);
  p.arm(wheel, at);
  EXPECT_TRUE(p.dl.armed());
  EXPECT_EQ(wheel.size(), 1u);
  run_until(ioc, [&] { return p.fired > 0; });
  ASSERT_EQ(p.fired, 1);
  EXPECT_GE(p.when, at);
  // Coarse, not lax: well within a second on an idle loop.
  EXPECT_LT(p.when - at, milliseconds(500));
  EXPECT_FALSE(p.dl.armed());
  EXPECT_EQ(wheel.size(), 0u);
  ioc.restart();
  ioc.run_for(milliseconds(50));
  EXPECT_EQ(p.fired, 1);
}

TEST(TimerWheel, DeadlinesFireInTimeOrderWhateverTheOrderArmed) {
  boost::asio::io_context ioc(1);
  TimerWheel& wheel = TimerWheel::of(ioc);
  std::vector<int> order;
  std::vector<std::unique_ptr<Probe>> probes;
  const auto t0 = Clock::now();
  // Armed latest first: each earlier one moves the wheel's Asio timer.
  for (int i = 5; i >= 1; --i) {
    probes.push_back(std::make_unique<Probe>());
    probes.back()->order = &order;
    probes.back()->id = i;
    probes.back()->arm(wheel, t0 + milliseconds(30 * i));
  }
  run_until(ioc, [&] { return order.size() == 5; });
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5}));
  for (auto& p : probes) EXPECT_GE(p->when, t0 + milliseconds(30 * p->id));
}

TEST(TimerWheel, ACancelledOrDestroyedDeadlineNeverFires) {
  boost::asio::io_context ioc(1);
  TimerWheel& wheel = TimerWheel::of(ioc);
  Probe cancelled, later;
  auto destroyed = std::make_unique<Probe>();
  const auto at = Clock::now() + milliseconds(30);
  cancelled.arm(wheel, at);
  destroyed->arm(wheel, at);
  later.arm(wheel, at + milliseconds(40));
  EXPECT_EQ(wheel.size(), 3u);
  cancelled.dl.cancel();
  destroyed.reset();
  EXPECT_EQ(wheel.size(), 1u);
  run_until(ioc, [&] { return later.fired > 0; });
  EXPECT_EQ(later.fired, 1);
  EXPECT_EQ(cancelled.fired, 0);
  EXPECT_EQ(wheel.size(), 0u);
}

TEST(TimerWheel, ARearmMovesTheDeadline) {
  boost::asio::io_context ioc(1);
  TimerWheel& wheel = TimerWheel::of(ioc);
  Probe p;
  const auto t0 = Clock::now();
  p.arm(wheel, t0 + milliseconds(20));
  p.arm(wheel, t0 + milliseconds(150));  // replaces the first
  EXPECT_EQ(wheel.size(), 1u);
  run_until(ioc, [&] { return p.fired > 0; });
  ASSERT_EQ(p.fired, 1);
  EXPECT_GE(p.when, t0 + milliseconds(150));
}

// A callback cancels a deadline due in the same tick, and re-arms itself.
TEST(TimerWheel, ACallbackMayCancelAnotherDueDeadlineAndRearmItself) {
  boost::asio::io_context ioc(1);
  TimerWheel& wheel = TimerWheel::of(ioc);
  struct Owner {
    Deadline dl;
    TimerWheel* wheel = nullptr;
    Deadline* victim = nullptr;
    int fired = 0;
    static void fire(void* p) {
      auto* o = static_cast<Owner*>(p);
      ++o->fired;
      o->victim->cancel();  // due in the same tick: on the firing list already
      if (o->fired == 1) o->dl.arm(*o->wheel, Clock::now() + milliseconds(20), &Owner::fire, o);
    }
  } owner;
  owner.wheel = &wheel;
  Probe other;
  owner.victim = &other.dl;
  const auto at = Clock::now() + milliseconds(30);
  owner.dl.arm(wheel, at, &Owner::fire, &owner);
  other.arm(wheel, at);  // the same tick, armed after: fires after the owner
  run_until(ioc, [&] { return owner.fired >= 2; });
  EXPECT_EQ(owner.fired, 2);
  EXPECT_EQ(other.fired, 0);
  EXPECT_EQ(wheel.size(), 0u);
}

// A deadline more than a turn ahead sits in a slot the wheel passes first:
// the pass must leave it there.
TEST(TimerWheel, ADeadlinePastATurnWaitsForItsOwnTurn) {
  boost::asio::io_context ioc(1);
  TimerWheel& wheel = TimerWheel::of(ioc);
  const auto turn = TimerWheel::kTick * TimerWheel::kSlots;
  const auto t0 = Clock::now();
  Probe soon, far;
  soon.arm(wheel, t0 + milliseconds(40));
  far.arm(wheel, t0 + milliseconds(40) + turn);  // the same slot, a turn later
  run_until(ioc, [&] { return soon.fired > 0; });
  ASSERT_EQ(soon.fired, 1);
  ioc.restart();
  ioc.run_for(milliseconds(60));
  EXPECT_EQ(far.fired, 0);
  EXPECT_TRUE(far.dl.armed());
  EXPECT_EQ(wheel.size(), 1u);
}

// The io_context goes away with deadlines armed: none fires, and their
// owners, destroyed after it, find them unarmed.
TEST(TimerWheel, AnIoContextGoingAwayDropsItsDeadlines) {
  Probe p;
  {
    boost::asio::io_context ioc(1);
    p.arm(TimerWheel::of(ioc), Clock::now() + milliseconds(10));
    EXPECT_TRUE(p.dl.armed());
  }
  EXPECT_FALSE(p.dl.armed());
  EXPECT_EQ(p.fired, 0);
}
