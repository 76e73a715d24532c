//===- ThreadsTest.cpp - lockstep threads, shared/local memory, divergence -===//
//
// A 32-thread kernel whose answer depends on shared buffers being per
// program instance, local buffers per thread and barriers ordering accesses;
// a divergent scf.if runs each thread through its own branch unless the
// branch orders threads (a barrier), divergent scf.for bounds and such
// branches are reported with their location, and thread-dependent values
// that happen to agree are accepted.
//
//===----------------------------------------------------------------------===//
#include "TestUtils.h"

#include <algorithm>
#include <cmath>

using namespace argus::interp;
using namespace argus::interp::test;

TEST(InterpreterThreads, NeighbourExchangeThroughSharedMemory) {
  LoadedKernel k = loadInput("thread_neighbours.mlir");
  ASSERT_TRUE(k) << "thread_neighbours.mlir did not parse";
  for (int64_t n : {1, 31, 32, 45, 100}) {
    SCOPED_TRACE("N=" + std::to_string(n));
    std::mt19937 rng(static_cast<unsigned>(n));
    HostTensor<float> x({n}), y({n});
    for (auto &v : x.data)
      v = randomValue(rng);
    std::fill(y.data.begin(), y.data.end(), nanf32());
    ASSERT_EQ(errorText(runKernel(k.kernel, {x.arg(), y.arg()})), "");
    for (int64_t i = 0; i < n; ++i) {
      int64_t block = i / 32, t = i % 32, nb = block * 32 + (t + 1) % 32;
      double neighbour = nb < n ? x.data[nb] : 0.0;
      float ref = static_cast<float>(static_cast<float>(2.0 * neighbour) + x.data[i]);
      ASSERT_EQ(y.data[i], ref) << "Y[" << i << "]";
    }
  }
}

namespace {

/// A 4-thread kernel around `body` (which may use %t = thread id, %n, %Y).
std::string threadKernel(const std::string &body) {
  return R"(module {
  func.func @k__grid(%Y: !argus.tensor<?xf32>, %n: index) -> (index, index, index)
      attributes {argus.grid_of = @k} {
    %c1 = arith.constant 1 : index
    return %c1, %c1, %c1 : index, index, index
  }
  func.func @k(%Y: !argus.tensor<?xf32>, %n: index)
      attributes {argus.kernel, argus.grid = @k__grid, argus.threads = 4 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %one = arith.constant 1.0 : f32
    %t = argus.thread_id
)" + body + R"(
    return
  }
})";
}

/// "threads.mlir:line:col" of the first occurrence of `needle` in the kernel.
std::string locationOf(const std::string &body, const std::string &needle) {
  std::string text = threadKernel(body);
  size_t pos = text.find(needle);
  size_t lineStart = text.rfind('\n', pos);
  lineStart = lineStart == std::string::npos ? 0 : lineStart + 1;
  int64_t line = 1 + std::count(text.begin(), text.begin() + pos, '\n');
  return "threads.mlir:" + std::to_string(line) + ":" + std::to_string(pos - lineStart + 1);
}

std::string runThreadKernel(const std::string &body, HostTensor<float> &y) {
  LoadedKernel k = loadString(threadKernel(body), "threads.mlir");
  if (!k)
    return "parse error";
  return errorText(runKernel(k.kernel, {y.arg(), ScalarArg{0, 3}}));
}

} // namespace

TEST(InterpreterThreads, DivergentIfRunsEachThreadThroughItsOwnBranch) {
  HostTensor<float> y({4});
  std::fill(y.data.begin(), y.data.end(), nanf32());
  // Threads 0 and 1 take the then-branch, 2 and 3 the else-branch; each
  // yields its own value and the store after the if writes it.
  std::string err = runThreadKernel(R"(
    %lt = arith.cmpi ult, %t, %c2 : index
    %r = scf.if %lt -> (f32) {
      %tf = arith.index_cast %t : index to i32
      %f = arith.sitofp %tf : i32 to f32
      scf.yield %f : f32
    } else {
      %neg = arith.negf %one : f32
      scf.yield %neg : f32
    }
    %v = argus.full %r : f32 -> !argus.tile<1xf32>
    argus.store %v, %Y[%t] : !argus.tile<1xf32>, !argus.tensor<?xf32>)",
                                    y);
  ASSERT_EQ(err, "");
  EXPECT_EQ(y.data[0], 0.0f);
  EXPECT_EQ(y.data[1], 1.0f);
  EXPECT_EQ(y.data[2], -1.0f);
  EXPECT_EQ(y.data[3], -1.0f);
}

TEST(InterpreterThreads, OnlyTheThreadsInABranchStore) {
  HostTensor<float> y({4});
  std::fill(y.data.begin(), y.data.end(), nanf32());
  std::string err = runThreadKernel(R"(
    %lt = arith.cmpi ult, %t, %c2 : index
    scf.if %lt {
      %v = argus.full %one : f32 -> !argus.tile<1xf32>
      argus.store %v, %Y[%t] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    })",
                                    y);
  ASSERT_EQ(err, "");
  EXPECT_EQ(y.data[0], 1.0f);
  EXPECT_EQ(y.data[1], 1.0f);
  EXPECT_TRUE(std::isnan(y.data[2]));
  EXPECT_TRUE(std::isnan(y.data[3]));
}

TEST(InterpreterThreads, DivergentIfAroundABarrierIsReportedWithItsLocation) {
  HostTensor<float> y({4});
  const std::string body = R"(
    %lt = arith.cmpi ult, %t, %c2 : index
    scf.if %lt {
      argus.barrier
    })";
  std::string err = runThreadKernel(body, y);
  EXPECT_NE(err.find("divergent control flow at " + locationOf(body, "scf.if") +
                     " is not supported by the interpreter"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("thread 2"), std::string::npos) << err;
  EXPECT_NE(err.find("its branch holds 'argus.barrier' at " + locationOf(body, "argus.barrier")),
            std::string::npos)
      << err;
}

TEST(InterpreterThreads, DivergentLoopBoundIsReported) {
  HostTensor<float> y({4});
  const std::string body = R"(
    scf.for %i = %c0 to %t step %c1 {
      %v = argus.full %one : f32 -> !argus.tile<1xf32>
      argus.store %v, %Y[%i] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    })";
  std::string err = runThreadKernel(body, y);
  EXPECT_NE(err.find("divergent control flow at " + locationOf(body, "scf.for")),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("the upper bound"), std::string::npos) << err;
}

TEST(InterpreterThreads, ThreadDependentButEqualConditionIsUniform) {
  HostTensor<float> y({4});
  std::fill(y.data.begin(), y.data.end(), nanf32());
  // %z is computed per thread but is 0 everywhere: the branch is uniform.
  std::string err = runThreadKernel(R"(
    %z = arith.muli %t, %c0 : index
    %eq = arith.cmpi eq, %z, %c0 : index
    scf.if %eq {
      %tf = arith.index_cast %t : index to i32
      %f = arith.sitofp %tf : i32 to f32
      %v = argus.full %f : f32 -> !argus.tile<1xf32>
      argus.store %v, %Y[%t] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    })",
                                    y);
  ASSERT_EQ(err, "");
  for (int t = 0; t < 4; ++t)
    EXPECT_EQ(y.data[t], float(t));
}

TEST(InterpreterThreads, LocalBuffersArePerThreadAndSharedOnesAreNot) {
  HostTensor<float> y({8});
  std::fill(y.data.begin(), y.data.end(), nanf32());
  // Every thread writes its id into both buffers; the shared slot ends with
  // the last writer's value (thread 3), the local one keeps each thread's own.
  std::string err = runThreadKernel(R"(
    %sh = argus.alloc : !argus.buffer<1xf32, shared>
    %lo = argus.alloc : !argus.buffer<1xf32, local>
    %tf = arith.index_cast %t : index to i32
    %f = arith.sitofp %tf : i32 to f32
    %v = argus.full %f : f32 -> !argus.tile<1xf32>
    argus.buffer_store %v, %sh[] : !argus.tile<1xf32>, !argus.buffer<1xf32, shared>
    argus.buffer_store %v, %lo[] : !argus.tile<1xf32>, !argus.buffer<1xf32, local>
    argus.barrier
    %a = argus.buffer_load %sh[] : !argus.buffer<1xf32, shared> -> !argus.tile<1xf32>
    %b = argus.buffer_load %lo[] : !argus.buffer<1xf32, local> -> !argus.tile<1xf32>
    %c4 = arith.constant 4 : index
    %t4 = arith.addi %t, %c4 : index
    argus.store %a, %Y[%t] : !argus.tile<1xf32>, !argus.tensor<?xf32>
    argus.store %b, %Y[%t4] : !argus.tile<1xf32>, !argus.tensor<?xf32>)",
                                    y);
  ASSERT_EQ(err, "");
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(y.data[t], 3.0f) << t;
    EXPECT_EQ(y.data[4 + t], float(t)) << t;
  }
}
