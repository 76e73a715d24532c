//===- ObserverTest.cpp - what a RunObserver is told, and onlyInstance ----===//
//
// The verifier replays a counterexample by running one program instance and
// watching it: the values at each assert_tag (with the loop counters that
// lead there), the tiles each store writes, and each buffer access.
//
//===----------------------------------------------------------------------===//
#include "TestUtils.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <map>

using namespace argus::interp;
using namespace argus::interp::test;

namespace {

struct TagEvent {
  std::array<int64_t, 3> pid;
  unsigned thread;
  std::optional<int64_t> kt, accDefined;
  std::vector<std::vector<double>> values;
  std::vector<llvm::SmallVector<int64_t, 4>> shapes;
};
struct StoreEvent {
  std::array<int64_t, 3> pid;
  unsigned thread;
  std::vector<int64_t> offsets, shape;
};
struct BufferEvent {
  std::string op;
  unsigned thread;
  bool write, completion;
  std::vector<int64_t> slot;
  std::optional<int64_t> tid;
  bool operator==(const BufferEvent &o) const {
    return op == o.op && thread == o.thread && write == o.write && completion == o.completion &&
           slot == o.slot && tid == o.tid;
  }
};

struct Recorder : RunObserver {
  mlir::Value kt, acc, tid; // values to query through scalarValue
  std::vector<std::array<int64_t, 3>> instances;
  std::vector<TagEvent> tags;
  std::vector<StoreEvent> stores;
  std::vector<BufferEvent> buffers;

  void onInstance(const std::array<int64_t, 3> &pid) override { instances.push_back(pid); }
  void onAssertTag(mlir::Operation *op, const ObservedContext &ctx,
                   llvm::ArrayRef<std::vector<double>> values,
                   llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> shapes) override {
    EXPECT_TRUE(llvm::isa<argus::AssertTagOp>(op));
    tags.push_back({ctx.programId, ctx.thread, ctx.scalarValue(kt), ctx.scalarValue(acc),
                    std::vector<std::vector<double>>(values.begin(), values.end()),
                    std::vector<llvm::SmallVector<int64_t, 4>>(shapes.begin(), shapes.end())});
  }
  void onStore(mlir::Operation *op, const ObservedContext &ctx, llvm::ArrayRef<int64_t> offsets,
               llvm::ArrayRef<int64_t> shape) override {
    EXPECT_TRUE(llvm::isa<argus::StoreOp>(op));
    stores.push_back({ctx.programId, ctx.thread, {offsets.begin(), offsets.end()}, {shape.begin(), shape.end()}});
  }
  void onBufferAccess(mlir::Operation *op, const ObservedContext &ctx, bool write, bool completion,
                      llvm::ArrayRef<int64_t> slot) override {
    buffers.push_back({op->getName().getStringRef().str(), ctx.thread, write, completion,
                       {slot.begin(), slot.end()}, tid ? ctx.scalarValue(tid) : std::nullopt});
  }
};

struct ObservedKernel {
  LoadedKernel k = loadInput("observed.mlir");
  mlir::scf::ForOp loop;
  HostTensor<float> x{{10, 7}, /*pad=*/2}, y{{12, 8}};
  ObservedKernel() {
    k.kernel.walk([&](mlir::scf::ForOp f) { loop = f; });
    std::mt19937 rng(23);
    for (auto &v : x.data)
      v = randomValue(rng);
    std::fill(y.data.begin(), y.data.end(), nanf32());
  }
  float xAt(int64_t i, int64_t j) { return i < 10 && j < 7 ? x.at(i, j) : 0.0f; }
  std::string run(Recorder &rec, RunOptions options = {}) {
    rec.kt = loop.getInductionVar();
    rec.acc = loop.getResult(0);
    options.observer = &rec;
    return errorText(runKernel(k.kernel, {x.arg(), y.arg()}, options));
  }
};

TEST(InterpreterObserver, SeesAssertTagValuesAndTheLoopCounter) {
  ObservedKernel o;
  ASSERT_TRUE(o.k && o.loop);
  Recorder rec;
  ASSERT_EQ(o.run(rec), "");
  ASSERT_EQ(rec.tags.size(), 6u * 3u) << "one assertion per iteration of each of 6 instances";
  size_t n = 0;
  for (int64_t p1 = 0; p1 < 2; ++p1)
    for (int64_t p0 = 0; p0 < 3; ++p0) {
      std::vector<double> sum(16, 0.0);
      for (int64_t kt = 0; kt < 3; ++kt, ++n) {
        const TagEvent &e = rec.tags[n];
        SCOPED_TRACE("instance (" + std::to_string(p0) + "," + std::to_string(p1) + ") kt " + std::to_string(kt));
        EXPECT_EQ(e.pid, (std::array<int64_t, 3>{p0, p1, 0}));
        EXPECT_EQ(e.thread, 0u);
        EXPECT_EQ(e.kt, kt) << "scalarValue of the induction variable";
        EXPECT_EQ(e.accDefined, std::nullopt) << "the loop's result is not defined inside it";
        ASSERT_EQ(e.values.size(), 3u);
        EXPECT_EQ(e.shapes[0], (llvm::SmallVector<int64_t, 4>{4, 4}));
        EXPECT_EQ(e.shapes[1], (llvm::SmallVector<int64_t, 4>{4, 4}));
        EXPECT_TRUE(e.shapes[2].empty()) << "a scalar operand has an empty shape";
        EXPECT_EQ(e.values[2], std::vector<double>{double(kt)});
        ASSERT_EQ(e.values[0].size(), 16u);
        for (int64_t i = 0; i < 4; ++i)
          for (int64_t j = 0; j < 4; ++j) {
            EXPECT_EQ(e.values[0][i * 4 + j], double(o.xAt(4 * p0 + i, kt + j))) << i << "," << j;
            EXPECT_EQ(e.values[1][i * 4 + j], sum[i * 4 + j]) << "running sum " << i << "," << j;
          }
        for (int64_t i = 0; i < 16; ++i)
          sum[i] = double(float(sum[i]) + float(e.values[0][i]));
      }
    }
}

TEST(InterpreterObserver, SeesEachStoreOncePerInstance) {
  ObservedKernel o;
  ASSERT_TRUE(o.k && o.loop);
  Recorder rec;
  ASSERT_EQ(o.run(rec), "");
  std::vector<std::array<int64_t, 3>> expected;
  for (int64_t p1 = 0; p1 < 2; ++p1)
    for (int64_t p0 = 0; p0 < 3; ++p0)
      expected.push_back({p0, p1, 0});
  EXPECT_EQ(rec.instances, expected);
  ASSERT_EQ(rec.stores.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(rec.stores[i].pid, expected[i]);
    EXPECT_EQ(rec.stores[i].offsets, (std::vector<int64_t>{4 * expected[i][0], 4 * expected[i][1]}));
    EXPECT_EQ(rec.stores[i].shape, (std::vector<int64_t>{4, 4}));
  }
  EXPECT_TRUE(rec.buffers.empty());
}

TEST(InterpreterObserver, OnlyInstanceRunsOneInstance) {
  ObservedKernel o;
  ASSERT_TRUE(o.k && o.loop);
  Recorder rec;
  RunOptions options;
  options.onlyInstance = std::array<int64_t, 3>{2, 1, 0};
  ASSERT_EQ(o.run(rec, options), "");
  EXPECT_EQ(rec.instances, (std::vector<std::array<int64_t, 3>>{{2, 1, 0}}));
  ASSERT_EQ(rec.stores.size(), 1u);
  EXPECT_EQ(rec.stores[0].offsets, (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(rec.tags.size(), 3u);
  for (int64_t i = 0; i < 12; ++i)
    for (int64_t j = 0; j < 8; ++j) {
      float got = o.y.data[i * 8 + j];
      if (i >= 8 && j >= 4) {
        float want = 0;
        for (int64_t kt = 0; kt < 3; ++kt)
          want += o.xAt(i, kt + j - 4);
        EXPECT_FLOAT_EQ(got, want) << i << "," << j;
      } else {
        EXPECT_TRUE(std::isnan(got)) << "(" << i << "," << j << ") belongs to another instance";
      }
    }
}

TEST(InterpreterObserver, OnlyInstanceOutsideTheGridIsAnError) {
  ObservedKernel o;
  ASSERT_TRUE(o.k && o.loop);
  for (std::array<int64_t, 3> id : {std::array<int64_t, 3>{3, 0, 0}, {0, 2, 0}, {0, 0, 1}, {-1, 0, 0}}) {
    Recorder rec;
    RunOptions options;
    options.onlyInstance = id;
    std::string error = o.run(rec, options);
    EXPECT_NE(error.find("requested by onlyInstance is outside the grid (3, 2, 1) of @observed"), std::string::npos)
        << error;
    EXPECT_TRUE(rec.instances.empty());
  }
}

TEST(InterpreterObserver, SeesBufferAccessesPerThreadAndAsyncCompletion) {
  LoadedKernel k = loadInput("observed_threads.mlir");
  ASSERT_TRUE(k);
  Recorder rec;
  k.kernel.walk([&](argus::ThreadIdOp t) { rec.tid = t.getResult(); });
  HostTensor<float> x({8}), y({8});
  std::mt19937 rng(29);
  for (auto &v : x.data)
    v = randomValue(rng);
  RunOptions options;
  options.observer = &rec;
  ASSERT_EQ(errorText(runKernel(k.kernel, {x.arg(), y.arg()}, options)), "");
  std::vector<BufferEvent> expected = {
      {"argus.copy", 0, true, false, {1}, 0},         {"argus.copy", 1, true, false, {1}, 1},
      {"argus.copy", 0, true, true, {1}, 0},          {"argus.copy", 1, true, true, {1}, 1},
      {"argus.buffer_load", 0, false, false, {1}, 0}, {"argus.buffer_load", 1, false, false, {1}, 1},
      {"argus.buffer_store", 0, true, false, {0}, 0}, {"argus.buffer_store", 1, true, false, {1}, 1},
  };
  ASSERT_EQ(rec.buffers.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_TRUE(rec.buffers[i] == expected[i])
        << "event " << i << ": " << rec.buffers[i].op << " thread " << rec.buffers[i].thread << " write "
        << rec.buffers[i].write << " completion " << rec.buffers[i].completion << " slot "
        << (rec.buffers[i].slot.empty() ? -1 : rec.buffers[i].slot[0]);
  ASSERT_EQ(rec.stores.size(), 2u) << "a uniform store is seen once per thread";
  EXPECT_EQ(rec.stores[0].thread, 0u);
  EXPECT_EQ(rec.stores[1].thread, 1u);
  EXPECT_EQ(y.data, x.data);
}

} // namespace
