//===- HostTensor.h - typed host buffers for checking kernels ---*- C++ -*-===//
//
// A row-major host tensor of any Argus element type, readable and writable
// as double (writes round to the element type exactly as kernels do), with
// random fill, NaN poisoning and a view in the CPU calling convention.
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_REFERENCE_HOSTTENSOR_H
#define ARGUS_REFERENCE_HOSTTENSOR_H

#include "cpu/argus_cpu_abi.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace argus::ref {

/// F8E4M3FNUZ: gfx942's fp8 (exponent bias 8, no infinities or -0, 0x80 NaN).
enum class ElementType { F32, F16, BF16, F64, I32, I64, I8, I1, F8E4M3FNUZ };

/// Parses "f32", "bf16", ... (the MLIR spelling); false when unknown.
bool parseElementType(const std::string &name, ElementType &out);
const char *elementTypeName(ElementType t);
size_t elementSize(ElementType t);
bool isFloat(ElementType t);

class HostTensor {
public:
  HostTensor(ElementType type, std::vector<int64_t> shape);

  ElementType type() const { return type_; }
  const std::vector<int64_t> &shape() const { return shape_; }
  int64_t numElements() const { return numElements_; }

  /// Element `i` in row-major order.
  double get(int64_t i) const;
  /// Stores `v` rounded to the element type.
  void set(int64_t i, double v);

  /// Uniform values in [-1, 1) (integers in [-8, 8]), rounded to the type.
  void fillRandom(std::mt19937_64 &rng);
  /// NaN for floats, 0x5A5A... for integers: marks elements nobody wrote.
  void poison();
  bool isPoisoned(int64_t i) const;

  std::vector<double> toDoubles() const;
  argus_cpu_tensor view();

private:
  ElementType type_;
  std::vector<int64_t> shape_;
  int64_t numElements_;
  std::vector<uint8_t> bytes_;
};

} // namespace argus::ref

#endif // ARGUS_REFERENCE_HOSTTENSOR_H
