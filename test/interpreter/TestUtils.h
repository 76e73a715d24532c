//===- TestUtils.h - shared helpers of the interpreter tests ----*- C++ -*-===//
//
// Loading kernels (from test/interpreter/inputs, test/dialect/inputs, or a
// string), host tensors with explicit strides that can be poisoned, random
// data, and turning llvm::Error into a testable string.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_TEST_INTERPRETER_TESTUTILS_H
#define ARGUS_TEST_INTERPRETER_TESTUTILS_H

#include "argus/Dialect/Argus.h"
#include "argus/Interpreter/Interpreter.h"
#include "argus_numerics.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace argus::interp::test {

/// A parsed module and the kernel in it (the func with `argus.kernel`).
struct LoadedKernel {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp kernel;
  explicit operator bool() const { return module && kernel; }
};

inline std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  argus::registerArgusDialects(registry);
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

inline LoadedKernel finish(LoadedKernel k) {
  if (!k.module)
    return k;
  k.module->walk([&](mlir::func::FuncOp f) {
    if (f->hasAttr(argus::kernel_attr::kKernel))
      k.kernel = f;
  });
  return k;
}

inline LoadedKernel loadFile(const std::string &path) {
  LoadedKernel k;
  k.context = makeContext();
  k.module = mlir::parseSourceFile<mlir::ModuleOp>(path, k.context.get());
  return finish(std::move(k));
}

inline LoadedKernel loadInput(const std::string &name) {
  return loadFile(std::string(ARGUS_INTERP_INPUTS_DIR) + "/" + name);
}

inline LoadedKernel loadString(const std::string &text, const std::string &name) {
  LoadedKernel k;
  k.context = makeContext();
  k.module = mlir::parseSourceString<mlir::ModuleOp>(text, mlir::ParserConfig(k.context.get()),
                                                    name);
  return finish(std::move(k));
}

/// The message of `e`, or "" on success.
inline std::string errorText(llvm::Error e) {
  if (!e)
    return "";
  return llvm::toString(std::move(e));
}

inline std::string readText(const std::string &path) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return "";
  std::string s;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    s.append(buf, n);
  std::fclose(f);
  return s;
}

/// A row-major host tensor with a leading-dimension pad (rank <= 2 in these
/// tests), so masking and strides are both exercised. Storage type T.
template <typename T> struct HostTensor {
  std::vector<int64_t> shape;
  std::vector<int64_t> stride;
  std::vector<T> data;

  HostTensor(std::vector<int64_t> s, int64_t pad = 0) : shape(std::move(s)) {
    stride.assign(shape.size(), 1);
    int64_t size = 1;
    if (shape.size() == 2) {
      stride[0] = shape[1] + pad;
      size = shape[0] * stride[0];
    } else {
      for (int64_t d : shape)
        size *= d;
    }
    data.resize(std::max<int64_t>(size, 1));
  }
  T &at(int64_t i, int64_t j = 0) { return data[i * stride[0] + j * (shape.size() == 2 ? 1 : 0)]; }
  argus_cpu_tensor arg() {
    argus_cpu_tensor t{};
    t.data = data.data();
    for (size_t d = 0; d < shape.size(); ++d) {
      t.shape[d] = shape[d];
      t.stride[d] = stride[d];
    }
    return t;
  }
};

inline float nanf32() { return std::numeric_limits<float>::quiet_NaN(); }
inline uint16_t nanbf16() { return argus_num::f32_to_bf16(nanf32()); }

/// Uniform random values in [lo, hi) bounded away from zero.
inline float randomValue(std::mt19937 &rng, float lo = -1.f, float hi = 1.f) {
  std::uniform_real_distribution<float> dist(lo, hi);
  float v = dist(rng);
  if (std::fabs(v) < 1e-3f)
    v = 0.5f;
  return v;
}

} // namespace argus::interp::test

#endif // ARGUS_TEST_INTERPRETER_TESTUTILS_H
