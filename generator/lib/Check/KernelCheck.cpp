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
  for (const ref::TensorCheck &t : tensors) {
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

std::variant<const ref::Reference *, std::string> kernelReference(func::FuncOp kernel) {
  auto refName = kernel->getAttrOfType<StringAttr>(kernel_attr::kReference);
  if (!refName)
    return "kernel '" + kernel.getName().str() + "' names no reference (@kernel(..., reference=\"...\"))";
  const ref::Reference *reference = ref::findReference(refName.str());
  if (!reference) return "unknown reference '" + refName.str() + "'";
  std::vector<std::string> names;
  for (Attribute a : kernel->getAttrOfType<ArrayAttr>(kernel_attr::kArgNames)) names.push_back(cast<StringAttr>(a).str());
  if (names != reference->argNames) return "the kernel's parameters do not match reference '" + reference->name + "'";
  return reference;
}

std::variant<std::vector<ref::HarnessArg>, std::string>
describeArguments(func::FuncOp kernel, const std::map<std::string, int64_t> &sizes,
                  const std::map<std::string, double> &scalars) {
  auto symbols = kernel->getAttrOfType<DictionaryAttr>(kernel_attr::kSymbols);
  std::vector<std::string> names;
  for (Attribute a : kernel->getAttrOfType<ArrayAttr>(kernel_attr::kArgNames)) names.push_back(cast<StringAttr>(a).str());

  // Symbol of each (arg, dim).
  std::map<std::pair<int64_t, int64_t>, std::string> dimSymbol;
  for (NamedAttribute s : symbols)
    for (Attribute use : cast<ArrayAttr>(s.getValue())) {
      auto pair = cast<ArrayAttr>(use);
      dimSymbol[{cast<IntegerAttr>(pair[0]).getInt(), cast<IntegerAttr>(pair[1]).getInt()}] = s.getName().str();
    }

  std::vector<ref::HarnessArg> args(names.size());
  FunctionType type = kernel.getFunctionType();
  for (size_t i = 0; i < names.size(); ++i) {
    ref::HarnessArg &arg = args[i];
    arg.name = names[i];
    Type t = type.getInput(i);
    if (auto tensorType = dyn_cast<GlobalTensorType>(t)) {
      arg.isTensor = true;
      for (int64_t d = 0; d < tensorType.getRank(); ++d) {
        if (!tensorType.isDynamicDim(d)) {
          arg.shape.push_back(tensorType.getShape()[d]);
          continue;
        }
        const std::string &sym = dimSymbol[{int64_t(i), d}];
        auto it = sizes.find(sym);
        if (it == sizes.end()) return "give a size for dimension '" + sym + "' (--shape " + sym + "=...)";
        if (it->second < 1) return "size of '" + sym + "' must be >= 1";
        arg.shape.push_back(it->second);
      }
      int64_t elements = 1;
      for (int64_t d : arg.shape)
        if (__builtin_mul_overflow(elements, d, &elements) || elements > kMaxCheckElements)
          return "tensor '" + names[i] + "' would hold more than " + std::to_string(kMaxCheckElements) + " elements";
      if (!ref::parseElementType(typeName(tensorType.getElementType()), arg.type))
        return "tensor '" + names[i] + "' has an element type the checker cannot host";
    } else {
      auto it = scalars.find(names[i]);
      arg.scalar = it == scalars.end() ? 1.0 : it->second;
      if (!std::isfinite(arg.scalar) || std::fabs(arg.scalar) > 9.0e15)
        return "scalar '" + names[i] + "' must be a finite number of magnitude below 9e15";
      if (t.isF32()) arg.scalar = float(arg.scalar);
    }
  }
  for (auto &[name, _] : scalars)
    if (std::find(names.begin(), names.end(), name) == names.end())
      return "the kernel has no scalar parameter '" + name + "'";
  return args;
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

  auto reference = kernelReference(kernel);
  if (auto *why = std::get_if<std::string>(&reference)) {
    report.error = *why;
    return report;
  }
  report.reference = std::get<const ref::Reference *>(reference)->name + ": " +
                     std::get<const ref::Reference *>(reference)->summary;
  auto described = describeArguments(kernel, opt.sizes, opt.scalars);
  if (auto *why = std::get_if<std::string>(&described)) {
    report.error = *why;
    return report;
  }
  ref::KernelHarness harness;
  report.error = harness.prepare(*std::get<const ref::Reference *>(reference),
                                 std::move(std::get<std::vector<ref::HarnessArg>>(described)), opt.seed);
  if (!report.error.empty()) return report;

  // --- Run.
  if (opt.engine == Engine::Interpreter) {
    std::vector<interp::KernelArg> args;
    for (size_t i = 0; i < harness.args().size(); ++i) {
      if (ref::HostTensor *t = harness.tensor(i)) args.push_back(t->view());
      else args.push_back(interp::ScalarArg{harness.args()[i].scalar, int64_t(harness.args()[i].scalar)});
    }
    if (llvm::Error e = interp::runKernel(kernel, args)) {
      report.error = llvm::toString(std::move(e));
      return report;
    }
  } else {
    std::vector<argus_cpu_arg> args = harness.cpuArgs();
    report.error = runCompiled(kernel, opt.target, opt.workDir, args);
    if (!report.error.empty()) return report;
  }

  // --- Reference and comparison.
  report.passed = harness.compare(report.tensors);
  return report;
}

} // namespace argus::check
