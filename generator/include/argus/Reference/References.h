//===- References.h - float64 reference implementations ---------*- C++ -*-===//
//
// What a kernel is supposed to compute, in double precision, for the kernels
// that name a reference (`@kernel(..., reference="gemm_tn")`). A reference
// reads and writes the kernel's tensors as doubles, in the kernel's argument
// order, and says which tensors are pure outputs (to be poisoned before a
// run so unwritten elements show).
//
//===----------------------------------------------------------------------===//
#ifndef ARGUS_REFERENCE_REFERENCES_H
#define ARGUS_REFERENCE_REFERENCES_H

#include "argus/Reference/HostTensor.h"

#include <functional>
#include <map>
#include <random>
#include <optional>
#include <string>
#include <vector>

namespace argus::ref {

/// One kernel argument as the reference sees it.
struct RefArg {
  std::string name;
  bool isTensor = false;
  std::vector<int64_t> shape; // tensors
  std::vector<double> data;   // tensors, row-major, already rounded to the input dtype
  double scalar = 0;          // scalars
};

struct Reference {
  std::string name;
  std::string summary;
  /// The argument names the reference expects, in kernel order.
  std::vector<std::string> argNames;
  /// Checks the arguments have the shapes the reference expects: an empty
  /// string when they do, else what is wrong. Called before compute().
  std::function<std::string(const std::vector<RefArg> &args)> validate;
  /// Computes the outputs in place.
  std::function<void(std::vector<RefArg> &args)> compute;
  /// Number of terms each output element sums (for the tolerance).
  std::function<int64_t(const std::vector<RefArg> &args)> reductionSize;
  /// Names of tensors the kernel must fully write (given the scalars).
  std::function<std::vector<std::string>(const std::vector<RefArg> &args)> pureOutputs;
  /// How many times a value on its way to an output is rounded to the
  /// output's dtype: 1 for a GEMM; 2 for attention, whose probabilities are
  /// rounded to the input dtype before the P·V product (as FlashAttention does).
  int roundings = 1;
  /// Optional: makes random inputs meaningful where not every value is
  /// (page indices of a block table, sequence lengths). Called after the
  /// tensors are filled with random values and before the kernel runs.
  std::function<void(std::vector<RefArg> &args, std::mt19937_64 &rng)> arrangeInputs;
  /// Optional: the input whose element type sets the tolerance of every
  /// output, for f32 outputs of 16-bit computations (partial results);
  /// empty: each output's own type.
  std::string toleranceOf;
  /// Optional: per output it names, the magnitude of the terms each element
  /// sums (sum_j p_j |v_j| for attention), computed from the inputs. An
  /// element is then compared as |actual - expected| <= tol * magnitude,
  /// the scale of its rounding error, instead of against |expected| +
  /// rms(expected), which misjudges outputs whose rows differ in scale:
  /// causal attention's first rows average a few values, its last rows
  /// thousands (a kernel exact to the last bf16 bit failed the rms rule at
  /// 1024 tokens).
  std::function<std::map<std::string, std::vector<double>>(std::vector<RefArg> &args)> magnitudes;
};

/// The registered references; null when `name` is unknown.
const Reference *findReference(const std::string &name);
std::vector<std::string> referenceNames();

/// Relative tolerance for comparing an output of this element type computed
/// with f32 accumulation over `reduction` terms and rounded `roundings` times
/// to the element type on the way.
double toleranceFor(ElementType type, int64_t reduction, int roundings = 1);

struct Mismatch {
  int64_t index = -1;      // row-major element index, -1 when all match
  double expected = 0, actual = 0;
  int64_t mismatches = 0;  // elements outside tolerance
  int64_t unwritten = 0;   // poisoned elements never written
  double maxError = 0;     // max |actual - expected| / (|expected| + rms)
};

/// |actual - expected| <= tol * (|expected| + rms(expected)) for every
/// element, or tol * magnitude[i] where a magnitude is given.
Mismatch compare(const HostTensor &actual, const std::vector<double> &expected, double tol,
                 const std::vector<double> *magnitude = nullptr);

} // namespace argus::ref

#endif // ARGUS_REFERENCE_REFERENCES_H
