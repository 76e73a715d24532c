//===- KernelHarness.cpp - a kernel's arguments and their float64 check ---===//
#include "argus/Reference/KernelHarness.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <sstream>

namespace argus::ref {

namespace {

std::string coords(const std::vector<int64_t> &shape, int64_t index) {
  std::vector<int64_t> c(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    c[d] = index % shape[d];
    index /= shape[d];
  }
  std::string s = "[";
  for (size_t i = 0; i < c.size(); ++i) s += (i ? ", " : "") + std::to_string(c[i]);
  return s + "]";
}

} // namespace

std::string KernelHarness::prepare(const Reference &reference, std::vector<HarnessArg> args, uint64_t seed) {
  reference_ = &reference;
  args_ = std::move(args);
  tensors_.clear();
  tensorOf_.assign(args_.size(), -1);
  computed_ = false;
  magnitudes_.clear();
  std::mt19937_64 rng(seed);
  std::vector<RefArg> refArgs(args_.size());
  for (size_t i = 0; i < args_.size(); ++i) {
    const HarnessArg &a = args_[i];
    refArgs[i].name = a.name;
    refArgs[i].isTensor = a.isTensor;
    if (!a.isTensor) {
      refArgs[i].scalar = a.scalar;
      continue;
    }
    refArgs[i].shape = a.shape;
    tensorOf_[i] = int(tensors_.size());
    tensors_.emplace_back(a.type, a.shape);
    tensors_.back().fillRandom(rng);
  }
  if (std::string why = reference.validate(refArgs); !why.empty())
    return "the kernel's tensors do not fit reference '" + reference.name + "': " + why;
  std::vector<std::string> pure = reference.pureOutputs(refArgs);
  initial_.assign(tensors_.size(), std::nullopt);
  for (size_t i = 0; i < args_.size(); ++i)
    if (tensorOf_[i] >= 0 && std::find(pure.begin(), pure.end(), args_[i].name) != pure.end())
      tensor(i)->poison();
  for (size_t i = 0; i < args_.size(); ++i)
    if (tensorOf_[i] >= 0) refArgs[i].data = tensor(i)->toDoubles();
  if (reference.arrangeInputs) {
    reference.arrangeInputs(refArgs, rng);
    // What the arrangement changed (a poisoned output stays NaN, and stays poisoned).
    for (size_t i = 0; i < args_.size(); ++i)
      if (tensorOf_[i] >= 0)
        for (size_t j = 0; j < refArgs[i].data.size(); ++j) {
          const double was = tensor(i)->get(int64_t(j)), now = refArgs[i].data[j];
          if (was != now && !(std::isnan(was) && std::isnan(now)))
            tensor(i)->set(int64_t(j), now);
        }
  }
  for (size_t i = 0; i < args_.size(); ++i)
    if (tensorOf_[i] >= 0 && std::find(pure.begin(), pure.end(), args_[i].name) == pure.end())
      initial_[size_t(tensorOf_[i])] = *tensor(i);
  expected_ = std::move(refArgs);
  return "";
}

std::vector<argus_cpu_arg> KernelHarness::cpuArgs() {
  std::vector<argus_cpu_arg> out(args_.size());
  for (size_t i = 0; i < args_.size(); ++i) {
    if (HostTensor *t = tensor(i)) out[i].tensor = t->view();
    out[i].f = args_[i].scalar;
    out[i].i = int64_t(args_[i].scalar);
  }
  return out;
}

void KernelHarness::reset() {
  for (size_t t = 0; t < tensors_.size(); ++t) {
    if (initial_[t]) tensors_[t] = *initial_[t];
    else tensors_[t].poison();
  }
}

bool KernelHarness::compare(std::vector<TensorCheck> &checks) {
  if (!computed_) {
    reference_->compute(expected_);
    if (reference_->magnitudes) magnitudes_ = reference_->magnitudes(expected_);
    computed_ = true;
  }
  int64_t reduction = reference_->reductionSize ? reference_->reductionSize(expected_) : 1;
  auto toleranceType = [&](const HostTensor &t) {
    for (size_t i = 0; i < args_.size(); ++i)
      if (args_[i].name == reference_->toleranceOf && tensorOf_[i] >= 0) return tensor(i)->type();
    return t.type();
  };
  bool passed = true;
  checks.clear();
  for (size_t i = 0; i < args_.size(); ++i) {
    const HostTensor *t = tensor(i);
    if (!t) continue;
    TensorCheck r;
    r.name = args_[i].name;
    r.dtype = elementTypeName(t->type());
    r.shape = t->shape();
    r.tolerance = toleranceFor(toleranceType(*t), reduction, reference_->roundings);
    auto magnitude = magnitudes_.find(r.name);
    Mismatch m = ref::compare(*t, expected_[i].data, r.tolerance,
                              magnitude == magnitudes_.end() ? nullptr : &magnitude->second);
    r.maxError = m.maxError;
    r.mismatches = m.mismatches;
    r.unwritten = m.unwritten;
    if (m.index >= 0) {
      std::ostringstream os;
      os << r.name << coords(t->shape(), m.index) << ": expected " << m.expected << ", got " << m.actual;
      r.firstMismatch = os.str();
      passed = false;
    }
    checks.push_back(r);
  }
  return passed;
}

} // namespace argus::ref
