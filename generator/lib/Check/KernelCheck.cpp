//===- KernelCheck.cpp - kernels against float64 references ---------------===//
#include "argus/Check/KernelCheck.h"

#include "argus/Backend/CodegenCpu.h"
#include "argus/Dialect/Argus.h"
#include "argus/Emit/Compiler.h"
#include "argus/Emit/KernelInstance.h"
#include "argus/Emit/LibraryBuilder.h"
#include "argus/Interpreter/Interpreter.h"
#include "argus/Reference/References.h"

#include <atomic>
#include <cmath>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace mlir;

namespace argus::check {

std::string CheckReport::summary() const {
  std::ostringstream os;
  if (!error.empty()) {
    os << "error: " << error << "\n";
    return os.str();
  }
  os << "reference: " << reference << "\n";
  for (const TensorResult &t : tensors) {
    os << "  " << t.name << " " << t.dtype << "[";
    for (size_t i = 0; i < t.shape.size(); ++i) os << (i ? "x" : "") << t.shape[i];
    os << "]  max rel error " << t.maxError << " (tolerance " << t.tolerance << ")";
    if (t.mismatches) os << "  " << t.mismatches << " mismatches, first " << t.firstMismatch;
    if (t.unwritten) os << "  " << t.unwritten << " elements never written";
    os << "\n";
  }
  os << (passed ? "PASS" : "FAIL") << "\n";
  return os.str();
}

namespace {

std::string typeName(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}

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

/// Compiles `kernel` with the CPU backend into a shared object and calls it.
std::string runCompiled(func::FuncOp kernel, const std::string &target, const std::string &workDir,
                        std::vector<argus_cpu_arg> &args) {
  llvm::Expected<std::string> code = codegen::emitCpuKernel(kernel, "argus_checked_kernel", codegen::CpuTarget{target});
  if (!code) return llvm::toString(code.takeError());
  // A fresh name per kernel: dlopen of a path already loaded (and never
  // unloaded, see below) would return the previous kernel.
  static std::atomic<int> counter{0};
  std::string unique = std::to_string(getpid()) + "-" + std::to_string(counter++);
  fs::path dir = workDir.empty() ? fs::temp_directory_path() / ("argus-run-" + unique) : fs::path(workDir);
  std::error_code ec;
  fs::create_directories(dir, ec);
  fs::path src = dir / ("kernel-" + unique + ".cpp"), so = dir / ("kernel-" + unique + ".so");
  std::ofstream(src) << *code;
  fs::path home(emit::defaultHomeDir());
  std::vector<std::string> argv{emit::cxxCompiler()};
  for (const std::string &f : codegen::cpuCompileFlags(codegen::CpuTarget{target})) argv.push_back(f);
  argv.insert(argv.end(), {"-I" + (home / "dist" / "runtime").string(), "-I" + (home / "dist" / "runtime" / "cpu").string(),
                           "-shared", "-o", so.string(), src.string()});
  std::string output;
  if (emit::runCommand(argv, output) != 0) return "compiling the kernel failed:\n" + output;
  // RTLD_NODELETE: unloading a kernel whose OpenMP runtime has idle worker
  // threads would unmap code those threads still run.
  void *handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (!handle) return std::string("dlopen failed: ") + dlerror();
  auto fn = reinterpret_cast<argus_cpu_kernel_fn>(dlsym(handle, "argus_checked_kernel"));
  if (!fn) {
    dlclose(handle);
    return "the compiled kernel has no symbol argus_checked_kernel";
  }
  fn(args.data(), 0);
  dlclose(handle);
  if (workDir.empty()) fs::remove_all(dir, ec);
  return "";
}

} // namespace

/// Most elements one host tensor of a check may have (2 Gi elements).
constexpr int64_t kMaxCheckElements = int64_t(1) << 31;

CheckReport runChecked(const CheckOptions &opt);

CheckReport runAndCheck(const CheckOptions &opt) {
  try {
    return runChecked(opt);
  } catch (const std::bad_alloc &) {
    CheckReport report;
    report.error = "out of memory while allocating the tensors of the check";
    return report;
  }
}

CheckReport runChecked(const CheckOptions &opt) {
  CheckReport report;
  std::string source;
  if (!emit::readTextFile(opt.path, source, report.error)) return report;

  DialectRegistry registry;
  registerArgusDialects(registry);
  MLIRContext context(registry);
  auto lowered = lowering::compileKernelSource(source, opt.path, context, opt.specialization, opt.kernel);
  if (auto *f = std::get_if<lowering::LoweringFailure>(&lowered)) {
    report.error = f->message;
    return report;
  }
  ModuleOp module = *std::get<OwningOpRef<ModuleOp>>(lowered);
  func::FuncOp kernel = emit::findKernel(module);

  auto refName = kernel->getAttrOfType<StringAttr>(kernel_attr::kReference);
  if (!refName) {
    report.error = "kernel '" + kernel.getName().str() + "' names no reference (@kernel(..., reference=\"...\"))";
    return report;
  }
  const ref::Reference *reference = ref::findReference(refName.str());
  if (!reference) {
    report.error = "unknown reference '" + refName.str() + "'";
    return report;
  }
  report.reference = reference->name + ": " + reference->summary;
  auto argNames = kernel->getAttrOfType<ArrayAttr>(kernel_attr::kArgNames);
  auto symbols = kernel->getAttrOfType<DictionaryAttr>(kernel_attr::kSymbols);
  std::vector<std::string> names;
  for (Attribute a : argNames) names.push_back(cast<StringAttr>(a).str());
  if (names != reference->argNames) {
    report.error = "the kernel's parameters do not match reference '" + reference->name + "'";
    return report;
  }

  // Symbol of each (arg, dim).
  std::map<std::pair<int64_t, int64_t>, std::string> dimSymbol;
  for (NamedAttribute s : symbols)
    for (Attribute use : cast<ArrayAttr>(s.getValue())) {
      auto pair = cast<ArrayAttr>(use);
      dimSymbol[{cast<IntegerAttr>(pair[0]).getInt(), cast<IntegerAttr>(pair[1]).getInt()}] = s.getName().str();
    }

  // --- Arguments.
  std::mt19937_64 rng(opt.seed);
  std::vector<ref::HostTensor> tensors;
  std::vector<int> tensorOf(names.size(), -1);
  std::vector<ref::RefArg> refArgs(names.size());
  FunctionType type = kernel.getFunctionType();
  for (size_t i = 0; i < names.size(); ++i) {
    refArgs[i].name = names[i];
    Type t = type.getInput(i);
    if (auto tensorType = dyn_cast<GlobalTensorType>(t)) {
      std::vector<int64_t> shape;
      for (int64_t d = 0; d < tensorType.getRank(); ++d) {
        if (!tensorType.isDynamicDim(d)) {
          shape.push_back(tensorType.getShape()[d]);
          continue;
        }
        const std::string &sym = dimSymbol[{int64_t(i), d}];
        auto it = opt.sizes.find(sym);
        if (it == opt.sizes.end()) {
          report.error = "give a size for dimension '" + sym + "' (--shape " + sym + "=...)";
          return report;
        }
        if (it->second < 1) {
          report.error = "size of '" + sym + "' must be >= 1";
          return report;
        }
        shape.push_back(it->second);
      }
      int64_t elements = 1;
      for (int64_t d : shape)
        if (__builtin_mul_overflow(elements, d, &elements) || elements > kMaxCheckElements) {
          report.error = "tensor '" + names[i] + "' would hold more than " + std::to_string(kMaxCheckElements) +
                         " elements";
          return report;
        }
      ref::ElementType et;
      if (!ref::parseElementType(typeName(tensorType.getElementType()), et)) {
        report.error = "tensor '" + names[i] + "' has an element type the checker cannot host";
        return report;
      }
      tensorOf[i] = int(tensors.size());
      tensors.emplace_back(et, shape);
      tensors.back().fillRandom(rng);
      refArgs[i].isTensor = true;
      refArgs[i].shape = shape;
    } else {
      auto it = opt.scalars.find(names[i]);
      refArgs[i].scalar = it == opt.scalars.end() ? 1.0 : it->second;
      if (!std::isfinite(refArgs[i].scalar) || std::fabs(refArgs[i].scalar) > 9.0e15) {
        report.error = "scalar '" + names[i] + "' must be a finite number of magnitude below 9e15";
        return report;
      }
      if (t.isF32()) refArgs[i].scalar = float(refArgs[i].scalar);
    }
  }
  for (auto &[name, _] : opt.scalars)
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      report.error = "the kernel has no scalar parameter '" + name + "'";
      return report;
    }
  if (std::string why = reference->validate(refArgs); !why.empty()) {
    report.error = "the kernel's tensors do not fit reference '" + reference->name + "': " + why;
    return report;
  }
  for (const std::string &out : reference->pureOutputs(refArgs))
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == out && tensorOf[i] >= 0) tensors[tensorOf[i]].poison();
  for (size_t i = 0; i < names.size(); ++i)
    if (tensorOf[i] >= 0) refArgs[i].data = tensors[tensorOf[i]].toDoubles();
  if (reference->arrangeInputs) {
    reference->arrangeInputs(refArgs, rng);
    for (size_t i = 0; i < names.size(); ++i)
      if (tensorOf[i] >= 0)
        for (size_t j = 0; j < refArgs[i].data.size(); ++j)
          if (!std::isnan(refArgs[i].data[j])) tensors[tensorOf[i]].set(int64_t(j), refArgs[i].data[j]);
  }

  // --- Run.
  if (opt.engine == Engine::Interpreter) {
    std::vector<interp::KernelArg> args;
    for (size_t i = 0; i < names.size(); ++i) {
      if (tensorOf[i] >= 0) args.push_back(tensors[tensorOf[i]].view());
      else args.push_back(interp::ScalarArg{refArgs[i].scalar, int64_t(refArgs[i].scalar)});
    }
    if (llvm::Error e = interp::runKernel(kernel, args)) {
      report.error = llvm::toString(std::move(e));
      return report;
    }
  } else {
    std::vector<argus_cpu_arg> args(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
      if (tensorOf[i] >= 0) args[i].tensor = tensors[tensorOf[i]].view();
      args[i].f = refArgs[i].scalar;
      args[i].i = int64_t(refArgs[i].scalar);
    }
    report.error = runCompiled(kernel, opt.target, opt.workDir, args);
    if (!report.error.empty()) return report;
  }

  // --- Reference and comparison.
  reference->compute(refArgs);
  int64_t reduction = reference->reductionSize ? reference->reductionSize(refArgs) : 1;
  report.passed = true;
  auto toleranceType = [&](const ref::HostTensor &t) {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i] == reference->toleranceOf && tensorOf[i] >= 0) return tensors[tensorOf[i]].type();
    return t.type();
  };
  for (size_t i = 0; i < names.size(); ++i) {
    if (tensorOf[i] < 0) continue;
    const ref::HostTensor &t = tensors[tensorOf[i]];
    TensorResult r;
    r.name = names[i];
    r.dtype = ref::elementTypeName(t.type());
    r.shape = t.shape();
    r.tolerance = ref::toleranceFor(toleranceType(t), reduction, reference->roundings);
    ref::Mismatch m = ref::compare(t, refArgs[i].data, r.tolerance);
    r.maxError = m.maxError;
    r.mismatches = m.mismatches;
    r.unwritten = m.unwritten;
    if (m.index >= 0) {
      std::ostringstream os;
      os << names[i] << coords(t.shape(), m.index) << ": expected " << m.expected << ", got " << m.actual;
      r.firstMismatch = os.str();
      report.passed = false;
    }
    report.tensors.push_back(r);
  }
  return report;
}

} // namespace argus::check
