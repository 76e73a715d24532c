//===- fibers.h - GPU threads on the host, one fiber each -----------------===//
//
// What the GPU emulators (test/hip's wave emulator, test/cuda's cluster
// emulator) share: a group of GPU threads runs as one fiber (ucontext) per
// thread on the calling host thread, each running until it waits, so
// barriers and shuffles block exactly where the hardware's would. Fibers that
// wait at barriers the others never reach abort the run instead of hanging.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_EMULATION_FIBERS_H
#define ARGUS_TEST_EMULATION_FIBERS_H

#include <functional>

namespace argus::emu {

/// Prints "<who>: <what>" and aborts: an emulated kernel broke a rule.
[[noreturn]] void abortWith(const char *who, const char *what);

/// The running fiber gives way; the scheduler runs the next one.
void yieldFiber();

/// Tells the deadlock check that the running fiber moved a wait forward other
/// than by a Barrier (an mbarrier arrival, bytes landing): the round made progress.
void noteProgress();

/// Index (0 .. count - 1) of the fiber running now, in the current runFibers.
int runningFiber();

/// A reusable barrier for `count` fibers.
class Barrier {
public:
  explicit Barrier(int count) : count(count) {}
  void wait();
  /// Counts towards this generation without waiting for it (PTX bar.arrive).
  void arrive();
  int expected() const { return count; }
  /// No arrival is waiting for the rest of its generation.
  bool idle() const { return arrived == 0; }

private:
  const int count;
  int arrived = 0;
  unsigned generation = 0;
};

/// The order in which a round visits the fibers: 0, index order; 1, from the
/// last down; any other value, a fresh shuffle each round from that seed, with
/// one warp of 32 fibers, chosen by the seed, running only every 64th round (a
/// warp delayed). A kernel racing between its threads may pass in one order and
/// not another.
using Schedule = unsigned;

/// Runs body(i) as fiber i, i = 0 .. count - 1, round by round until all have
/// returned; a round in which no fiber arrives at a barrier or returns is a
/// deadlock, reported under `who`. Not reentrant: a body must not call it.
void runFibers(int count, const std::function<void(int)> &body, const char *who, Schedule schedule = 0);

} // namespace argus::emu

#endif // ARGUS_TEST_EMULATION_FIBERS_H
