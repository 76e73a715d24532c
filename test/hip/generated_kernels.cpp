//===- generated_kernels.cpp - the registry of generated kernels ----------===//
#include "generated_kernels.h"

namespace argus::hip::test {

std::vector<GeneratedGemm> &generatedGemms() {
  static std::vector<GeneratedGemm> kernels;
  return kernels;
}

bool registerGeneratedGemm(GeneratedGemm kernel) {
  generatedGemms().push_back(std::move(kernel));
  return true;
}

std::vector<GeneratedGateUp> &generatedGateUps() {
  static std::vector<GeneratedGateUp> kernels;
  return kernels;
}

bool registerGeneratedGateUp(GeneratedGateUp kernel) {
  generatedGateUps().push_back(std::move(kernel));
  return true;
}

} // namespace argus::hip::test
