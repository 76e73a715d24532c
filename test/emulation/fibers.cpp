//===- fibers.cpp - the fiber scheduler of the GPU emulators --------------===//
#include "fibers.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace argus::emu {
namespace {

// Arrivals, releases and finished fibers: a round of the scheduler that
// changes none of them is a deadlock.
thread_local uint64_t progress = 0;

// Every fiber on its own stack; a guard page below each turns an overflow
// into a fault, not corruption.
class Stacks {
public:
  static constexpr std::size_t kBytes = 512 * 1024;
  Stacks(int count, const char *who) : page(std::size_t(sysconf(_SC_PAGESIZE))), count(std::size_t(count)) {
    void *p = mmap(nullptr, this->count * (kBytes + page), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (p == MAP_FAILED)
      abortWith(who, "cannot map the fibers' stacks");
    base = static_cast<char *>(p);
    for (std::size_t i = 0; i < this->count; ++i)
      mprotect(base + i * (kBytes + page), page, PROT_NONE);
  }
  ~Stacks() { munmap(base, count * (kBytes + page)); }
  char *stack(int i) const { return base + std::size_t(i) * (kBytes + page) + page; }

private:
  const std::size_t page, count;
  char *base = nullptr;
};

struct Fiber {
  ucontext_t context;
  bool done = false;
};

struct Scheduler {
  ucontext_t main;
  std::vector<Fiber> *fibers = nullptr;
  int running = 0;
  const std::function<void(int)> *body = nullptr;
  const char *who = "";
};
thread_local Scheduler scheduler;

void runFiber() {
  (*scheduler.body)(scheduler.running);
  (*scheduler.fibers)[std::size_t(scheduler.running)].done = true;
  ++progress;
}

} // namespace

void abortWith(const char *who, const char *what) {
  std::fprintf(stderr, "%s: %s\n", who, what);
  std::abort();
}

void yieldFiber() {
  Fiber &self = (*scheduler.fibers)[std::size_t(scheduler.running)];
  if (swapcontext(&self.context, &scheduler.main) != 0)
    abortWith(scheduler.who, "swapcontext failed");
}

void noteProgress() { ++progress; }

int runningFiber() { return scheduler.running; }

void Barrier::wait() {
  const unsigned generation = this->generation;
  ++progress;
  if (++arrived == count) {
    arrived = 0;
    ++this->generation;
    return;
  }
  while (generation == this->generation)
    yieldFiber();
}

void Barrier::arrive() {
  ++progress;
  if (++arrived == count) {
    arrived = 0;
    ++generation;
  }
}

void runFibers(int count, const std::function<void(int)> &body, const char *who, Schedule schedule) {
  if (scheduler.fibers)
    abortWith(who, "a kernel launched another kernel");
  Stacks stacks(count, who);
  std::vector<Fiber> fibers(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    Fiber &f = fibers[std::size_t(i)];
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = stacks.stack(i);
    f.context.uc_stack.ss_size = Stacks::kBytes;
    f.context.uc_link = &scheduler.main;
    makecontext(&f.context, runFiber, 0);
  }
  scheduler.fibers = &fibers;
  scheduler.body = &body;
  scheduler.who = who;
  std::vector<int> order(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    order[std::size_t(i)] = schedule == 1 ? count - 1 - i : i;
  std::mt19937 shuffler(schedule);
  // Shuffled schedules also pick one warp of 32 fibers to run slowly, only every kSlowRounds-th
  // round (warps are scheduled independently on the hardware: a race that needs one warp to lag
  // behind the others shows). A round without progress is followed by one that visits every fiber;
  // only such a full round without progress is a deadlock.
  constexpr int kSlowRounds = 64;
  const int slowWarp = schedule > 1 ? int(shuffler() % unsigned((count + 31) / 32)) : -1;
  bool full = true;
  for (int round = 0, live = 1; live; ++round) {
    live = 0;
    const uint64_t before = progress;
    if (schedule > 1)
      std::shuffle(order.begin(), order.end(), shuffler);
    const bool everyone = full || round % kSlowRounds == 0;
    for (const int i : order) {
      if (fibers[std::size_t(i)].done)
        continue;
      if (!everyone && i / 32 == slowWarp) {
        live = 1;
        continue;
      }
      scheduler.running = i;
      if (swapcontext(&scheduler.main, &fibers[std::size_t(i)].context) != 0)
        abortWith(who, "swapcontext failed");
      live = live || !fibers[std::size_t(i)].done;
    }
    if (live && progress == before && everyone) {
      scheduler.fibers = nullptr;
      abortWith(who, "every thread waits at a barrier the others never reach");
    }
    full = progress == before;
  }
  scheduler.fibers = nullptr;
}

} // namespace argus::emu
