//===- CppSyntax.cpp - spelling MLIR types, literals and names in C++ -----===//
#include "CppSyntax.h"

#include "argus/Dialect/Argus.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;

namespace argus::codegen {

std::optional<std::string> scalarCType(Type type) {
  if (type.isIndex())
    return std::string("int64_t");
  if (type.isInteger(1))
    return std::string("bool");
  if (type.isInteger(8))
    return std::string("int8_t");
  if (type.isInteger(16))
    return std::string("int16_t");
  if (type.isInteger(32))
    return std::string("int32_t");
  if (type.isInteger(64))
    return std::string("int64_t");
  if (type.isF32() || type.isBF16() || type.isF16())
    return std::string("float");
  if (type.isF64())
    return std::string("double");
  return std::nullopt;
}

std::optional<std::string> dtypeTag(Type type) {
  if (type.isF32())
    return std::string("ak::f32");
  if (type.isF64())
    return std::string("ak::f64");
  if (type.isBF16())
    return std::string("ak::bf16");
  if (type.isF16())
    return std::string("ak::f16");
  if (type.isInteger(1))
    return std::string("ak::i1");
  if (type.isInteger(8))
    return std::string("ak::i8");
  if (type.isInteger(16))
    return std::string("ak::i16");
  if (type.isInteger(32))
    return std::string("ak::i32");
  if (type.isInteger(64) || type.isIndex())
    return std::string("ak::i64");
  return std::nullopt;
}

std::optional<std::string> storageCType(Type type) {
  if (type.isBF16() || type.isF16())
    return std::string("uint16_t");
  if (type.isInteger(1))
    return std::string("uint8_t");
  return scalarCType(type);
}

bool isNarrowFloat(Type type) { return type.isBF16() || type.isF16(); }

std::string floatLiteral(double v, Type type) {
  bool isDouble = type.isF64();
  if (std::isnan(v))
    return isDouble ? "std::numeric_limits<double>::quiet_NaN()"
                    : "std::numeric_limits<float>::quiet_NaN()";
  if (std::isinf(v)) {
    std::string inf = isDouble ? "std::numeric_limits<double>::infinity()"
                               : "std::numeric_limits<float>::infinity()";
    return v < 0 ? "-" + inf : inf;
  }
  // Shortest decimal spelling that reads back as the same value.
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (isDouble ? std::strtod(buf, nullptr) == v
                 : std::strtof(buf, nullptr) == static_cast<float>(v))
      break;
  }
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos)
    s += ".0";
  return isDouble ? s : s + "f";
}

std::string intLiteral(int64_t v, Type type) {
  if (type.isInteger(1))
    return (v & 1) ? "true" : "false";
  if (v == std::numeric_limits<int64_t>::min())
    return "INT64_MIN";
  return std::to_string(v);
}

static std::optional<FileLineColLoc> fileLoc(Location loc) {
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    return f;
  if (auto n = dyn_cast<NameLoc>(loc))
    return fileLoc(n.getChildLoc());
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return fileLoc(c.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (auto f = fileLoc(inner))
        return f;
  return std::nullopt;
}

std::string locString(Location loc) {
  auto f = fileLoc(loc);
  if (!f)
    return "";
  return (f->getFilename().str() + ":" + std::to_string(f->getLine()) + ":" +
          std::to_string(f->getColumn()));
}

std::string locComment(Location loc) {
  auto f = fileLoc(loc);
  if (!f)
    return "";
  return (llvm::sys::path::filename(f->getFilename()).str() + ":" + std::to_string(f->getLine()) +
          ":" + std::to_string(f->getColumn()));
}

std::string locName(Location loc) {
  if (auto n = dyn_cast<NameLoc>(loc))
    return n.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::string name = locName(inner); !name.empty())
        return name;
  return "";
}

NameTable::NameTable() {
  static const char *const kReserved[] = {
      // C++ keywords and names a local could shadow in emitted code.
      "alignas", "alignof", "and", "asm", "auto", "bool", "break", "case", "catch", "char",
      "class", "const", "constexpr", "continue", "default", "delete", "do", "double", "else",
      "enum", "explicit", "extern", "false", "float", "for", "friend", "goto", "if", "inline",
      "int", "long", "mutable", "namespace", "new", "noexcept", "not", "nullptr", "operator",
      "or", "private", "protected", "public", "register", "return", "short", "signed",
      "sizeof", "static", "struct", "switch", "template", "this", "throw", "true", "try",
      "typedef", "typename", "union", "unsigned", "using", "virtual", "void", "volatile",
      "while", "xor", "std", "main", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
      "uint16_t", "uint32_t", "uint64_t", "INT64_MIN", "INFINITY", "NAN",
      // Names the emitter itself uses.
      "ak", "argus_cpu", "args", "num_threads", "pid0", "pid1", "pid2", "npid0", "npid1",
      "npid2", "grid0", "grid1", "grid2", "ix", "ix0", "ix1", "ix2", "ix3", "ix4", "ix5",
      "ix6", "ix7", "argus_cpu_arg", "argus_cpu_tensor"};
  for (const char *name : kReserved)
    used.insert(name);
}

std::string NameTable::unique(llvm::StringRef hint) {
  std::string base;
  for (char ch : hint)
    base += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') ? ch : '_';
  if (base.empty()) {
    for (;;) {
      std::string name = "t" + std::to_string(nextTemp++);
      if (used.insert(name).second)
        return name;
    }
  }
  if (std::isdigit(static_cast<unsigned char>(base[0])) || base[0] == '_')
    base = "v" + base; // no leading digit; leading '_' names are the implementation's
  if (used.insert(base).second)
    return base;
  for (unsigned i = 1;; ++i) {
    std::string name = base + "_" + std::to_string(i);
    if (used.insert(name).second)
      return name;
  }
}

void flattenModes(Attribute a, SmallVectorImpl<int64_t> &out) {
  if (auto i = dyn_cast<IntegerAttr>(a))
    return out.push_back(i.getInt());
  for (Attribute e : cast<ArrayAttr>(a))
    flattenModes(e, out);
}

/// C++ expression of `layout` (#argus.layout / #argus.swizzle) applied to
/// the int64_t expression `x`, e.g. `(x ^ ((x & 48) >> 2))` for
/// swizzle<2,2,2> or `(x % 8) * 4 + (x / 8)` for layout<(8,4):(4,1)>.
std::string layoutExpr(Attribute layout, const std::string &x) {
  if (auto s = dyn_cast<SwizzleAttr>(layout)) {
    int64_t sh = s.getShift();
    int64_t yyy = ((int64_t(1) << s.getBits()) - 1) << (s.getBase() + std::max<int64_t>(0, sh));
    return "(" + x + " ^ ((" + x + " & " + std::to_string(yyy) + ") " + (sh >= 0 ? ">> " : "<< ") +
           std::to_string(std::abs(sh)) + "))";
  }
  auto l = cast<LayoutAttr>(layout);
  SmallVector<int64_t> modes, strides;
  flattenModes(l.getShape(), modes);
  flattenModes(l.getStride(), strides);
  std::string e;
  int64_t below = 1;
  for (size_t m = 0; m < modes.size(); ++m) {
    if (modes[m] != 1 && strides[m] != 0) {
      std::string term = below == 1 ? x : "(" + x + " / " + std::to_string(below) + ")";
      if (m + 1 < modes.size())
        term = "(" + term + " % " + std::to_string(modes[m]) + ")";
      if (strides[m] != 1)
        term += " * " + std::to_string(strides[m]);
      e += (e.empty() ? "" : " + ") + term;
    }
    below *= modes[m];
  }
  return e.empty() ? "int64_t(0)" : "(" + e + ")";
}

} // namespace argus::codegen
