//===- HostTensor.cpp - typed host buffers ---------------------------------===//
#include "argus/Reference/HostTensor.h"

#include "argus_numerics.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace argus::ref {
bool parseElementType(const std::string &name, ElementType &out) {
  static const std::pair<const char *, ElementType> table[] = {
      {"f32", ElementType::F32}, {"f16", ElementType::F16}, {"bf16", ElementType::BF16},
      {"f64", ElementType::F64}, {"i32", ElementType::I32}, {"i64", ElementType::I64},
      {"i8", ElementType::I8},   {"i1", ElementType::I1},   {"f8E4M3FNUZ", ElementType::F8E4M3FNUZ}};
  for (auto &[n, t] : table)
    if (name == n) {
      out = t;
      return true;
    }
  return false;
}

const char *elementTypeName(ElementType t) {
  switch (t) {
  case ElementType::F32: return "f32";
  case ElementType::F16: return "f16";
  case ElementType::BF16: return "bf16";
  case ElementType::F64: return "f64";
  case ElementType::I32: return "i32";
  case ElementType::I64: return "i64";
  case ElementType::I8: return "i8";
  case ElementType::I1: return "i1";
  case ElementType::F8E4M3FNUZ: return "f8E4M3FNUZ";
  }
  return "?";
}

size_t elementSize(ElementType t) {
  switch (t) {
  case ElementType::F64: case ElementType::I64: return 8;
  case ElementType::F32: case ElementType::I32: return 4;
  case ElementType::F16: case ElementType::BF16: return 2;
  case ElementType::I8: case ElementType::I1: case ElementType::F8E4M3FNUZ: return 1;
  }
  return 1;
}

bool isFloat(ElementType t) {
  return t == ElementType::F32 || t == ElementType::F16 || t == ElementType::BF16 || t == ElementType::F64 ||
         t == ElementType::F8E4M3FNUZ;
}

HostTensor::HostTensor(ElementType type, std::vector<int64_t> shape)
    : type_(type), shape_(std::move(shape)), numElements_(1) {
  for (int64_t d : shape_)
    numElements_ *= d;
  bytes_.assign(static_cast<size_t>(numElements_) * elementSize(type_) + 64, 0);
}

double HostTensor::get(int64_t i) const {
  const uint8_t *p = bytes_.data() + i * elementSize(type_);
  switch (type_) {
  case ElementType::F32: { float v; std::memcpy(&v, p, 4); return v; }
  case ElementType::F64: { double v; std::memcpy(&v, p, 8); return v; }
  case ElementType::F16: { uint16_t v; std::memcpy(&v, p, 2); return argus_num::f16_to_f32(v); }
  case ElementType::BF16: { uint16_t v; std::memcpy(&v, p, 2); return argus_num::bf16_to_f32(v); }
  case ElementType::I32: { int32_t v; std::memcpy(&v, p, 4); return v; }
  case ElementType::I64: { int64_t v; std::memcpy(&v, p, 8); return double(v); }
  case ElementType::I8: return int8_t(*p);
  case ElementType::I1: return *p ? 1 : 0;
  case ElementType::F8E4M3FNUZ: return argus_num::fp8_e4m3fnuz_to_f32(*p);
  }
  return 0;
}

void HostTensor::set(int64_t i, double v) {
  uint8_t *p = bytes_.data() + i * elementSize(type_);
  switch (type_) {
  case ElementType::F32: { float f = float(v); std::memcpy(p, &f, 4); return; }
  case ElementType::F64: std::memcpy(p, &v, 8); return;
  case ElementType::F16: { uint16_t h = argus_num::f32_to_f16(float(v)); std::memcpy(p, &h, 2); return; }
  case ElementType::BF16: { uint16_t h = argus_num::f32_to_bf16(float(v)); std::memcpy(p, &h, 2); return; }
  case ElementType::I32: { int32_t x = int32_t(v); std::memcpy(p, &x, 4); return; }
  case ElementType::I64: { int64_t x = int64_t(v); std::memcpy(p, &x, 8); return; }
  case ElementType::I8: *p = uint8_t(int8_t(v)); return;
  case ElementType::I1: *p = v != 0; return;
  case ElementType::F8E4M3FNUZ: *p = argus_num::f32_to_fp8_e4m3fnuz(float(v)); return;
  }
}

void HostTensor::fillRandom(std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> real(-1.0, 1.0);
  std::uniform_int_distribution<int> integer(-8, 8);
  for (int64_t i = 0; i < numElements_; ++i)
    set(i, isFloat(type_) ? real(rng) : double(type_ == ElementType::I1 ? integer(rng) > 0 : integer(rng)));
}

void HostTensor::poison() {
  if (isFloat(type_)) {
    for (int64_t i = 0; i < numElements_; ++i)
      set(i, std::numeric_limits<double>::quiet_NaN());
  } else {
    std::memset(bytes_.data(), 0x5A, static_cast<size_t>(numElements_) * elementSize(type_));
  }
}

bool HostTensor::isPoisoned(int64_t i) const {
  if (isFloat(type_))
    return std::isnan(get(i));
  const uint8_t *p = bytes_.data() + i * elementSize(type_);
  for (size_t b = 0; b < elementSize(type_); ++b)
    if (p[b] != 0x5A)
      return false;
  return true;
}

std::vector<double> HostTensor::toDoubles() const {
  std::vector<double> out(numElements_);
  for (int64_t i = 0; i < numElements_; ++i)
    out[i] = get(i);
  return out;
}

argus_cpu_tensor HostTensor::view() {
  argus_cpu_tensor t{};
  t.data = bytes_.data();
  int64_t stride = 1;
  for (int d = int(shape_.size()) - 1; d >= 0; --d) {
    t.shape[d] = shape_[d];
    t.stride[d] = stride;
    stride *= shape_[d];
  }
  return t;
}

} // namespace argus::ref
