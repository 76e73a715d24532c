//===- ulps.h - distance of a float result from a float64 one, in ulps ----===//
#ifndef ARGUS_TEST_CODEGEN_ULPS_H
#define ARGUS_TEST_CODEGEN_ULPS_H

#include <cmath>

namespace {

/// |got - want| in units of the float spacing just above float(want).
inline double ulpsOff(float got, double want) {
  const float w = float(want);
  return std::fabs(double(got) - want) / double(std::nextafter(w, INFINITY) - w);
}

} // namespace

#endif // ARGUS_TEST_CODEGEN_ULPS_H
