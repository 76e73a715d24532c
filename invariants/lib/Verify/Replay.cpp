//===- Replay.cpp - confirm a counterexample in the interpreter ---------===//
//
// Every input tensor is filled with values that name their own element:
// tensor t, row-major index i holds t * 2^20 + i + 1 (exact in f32 and in
// integers). Data movement keeps values, so the value an assertion operand
// holds names the global element it came from, and the tag function gives its
// tag; a value that names nothing (poison, a computed value) has no tag.
//
//===----------------------------------------------------------------------===//

#include "Replay.h"

#include "Counterexample.h"

#include "argus/Interpreter/Interpreter.h"

#include <cmath>
#include <map>
#include <set>

namespace argus::verify::detail {

using namespace mlir;

namespace {

constexpr int64_t kTensorStride = int64_t(1) << 20;

struct Inputs {
  std::vector<std::vector<float>> f32;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<interp::KernelArg> args;
};

/// Concrete sizes of the counterexample: the value of every Size variable.
std::optional<std::vector<int64_t>> concreteDims(Executor &ex, const TensorInfo &t,
                                                 const Finding &f) {
  z3::expr_vector from(ex.ctx.z3), to(ex.ctx.z3);
  for (const VarInfo &v : ex.ctx.vars())
    if (v.role == VarRole::Size || v.role == VarRole::Scalar)
      for (auto &[name, value] : f.sizes)
        if (name == v.name && !v.var.is_bool()) {
          from.push_back(v.var);
          to.push_back(ex.ctx.z3.bv_val(value, v.var.get_sort().bv_size()));
        }
  std::vector<int64_t> dims;
  for (const z3::expr &d : t.dims) {
    int64_t value = 0;
    z3::expr c = z3::expr(d).substitute(from, to).simplify();
    if (!c.is_numeral_i64(value) || value <= 0)
      return std::nullopt;
    dims.push_back(value);
  }
  return dims;
}

std::string buildInputs(Executor &ex, func::FuncOp kernel, const Finding &f, Inputs &in) {
  size_t tensor = 0;
  in.f32.reserve(kernel.getNumArguments());
  for (BlockArgument arg : kernel.getArguments()) {
    Type type = arg.getType();
    if (auto t = dyn_cast<GlobalTensorType>(type)) {
      if (!t.getElementType().isF32())
        return "replay encodes element identity in f32 tensors only; '" +
               ex.exec.tensors[tensor].name + "' holds " + [&] {
                 std::string s;
                 llvm::raw_string_ostream os(s);
                 os << t.getElementType();
                 return s;
               }();
      auto dims = concreteDims(ex, ex.exec.tensors[tensor], f);
      if (!dims)
        return "the counterexample does not fix the sizes of '" + ex.exec.tensors[tensor].name + "'";
      int64_t n = 1;
      for (int64_t d : *dims)
        n *= d;
      if (n >= kTensorStride - 1)
        return "the counterexample's tensors are too large to replay";
      in.f32.emplace_back(n);
      for (int64_t i = 0; i < n; ++i)
        in.f32.back()[i] = static_cast<float>(tensor * kTensorStride + i + 1);
      in.shapes.push_back(*dims);
      argus_cpu_tensor desc{};
      desc.data = in.f32.back().data();
      int64_t stride = 1;
      for (size_t d = dims->size(); d-- > 0;) {
        desc.shape[d] = (*dims)[d];
        desc.stride[d] = stride;
        stride *= (*dims)[d];
      }
      in.args.push_back(desc);
      ++tensor;
      continue;
    }
    interp::ScalarArg s{1.0, 0};
    std::string name = "arg";
    if (auto names = kernel->getAttrOfType<ArrayAttr>(kernel_attr::kArgNames))
      name = cast<StringAttr>(names[arg.getArgNumber()]).getValue().str();
    for (auto &[n, v] : f.sizes)
      if (n == name)
        s.i = v;
    in.args.push_back(s);
  }
  return "";
}

/// Loop induction variables enclosing `op`, outermost first.
std::vector<Value> enclosingIvs(Operation *op) {
  std::vector<Value> ivs;
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (auto loop = dyn_cast<scf::ForOp>(p))
      ivs.insert(ivs.begin(), loop.getInductionVar());
  return ivs;
}

bool sameInstance(const interp::ObservedContext &ctx, const Access &a, Operation *op) {
  for (size_t d = 0; d < 3 && d < a.block.size(); ++d)
    if (ctx.programId[d] != a.block[d])
      return false;
  if (static_cast<int64_t>(ctx.thread) != a.thread)
    return false;
  std::vector<Value> ivs = enclosingIvs(op);
  for (size_t i = 0; i < ivs.size() && i < a.point.iterations.size(); ++i)
    if (ctx.scalarValue(ivs[i]) != a.point.iterations[i].second)
      return false;
  return true;
}

/// The tag of an observed value: the element it names through its tensor's tag function.
TagExpr decode(Executor &ex, const Inputs &in, double v) {
  if (!std::isfinite(v) || v < 1 || v != std::floor(v))
    return ex.ctx.untagged();
  int64_t code = static_cast<int64_t>(v) - 1;
  size_t tensor = code / kTensorStride;
  int64_t linear = code % kTensorStride;
  if (tensor >= ex.exec.tensors.size() || !ex.exec.tensors[tensor].tag)
    return ex.ctx.untagged();
  unsigned origin = *ex.exec.tensors[tensor].tag;
  const TagFunction &fn = ex.exec.tagFunctions[origin];
  const std::vector<int64_t> &dims = in.shapes[tensor];
  z3::expr_vector from(ex.ctx.z3), to(ex.ctx.z3);
  for (size_t d = dims.size(); d-- > 0;) {
    if (d < fn.params.size()) {
      from.push_back(fn.params[d]);
      to.push_back(ex.ctx.index(linear % dims[d]));
    }
    linear /= dims[d];
  }
  TagExpr tag{ex.ctx.state(TagState::Tagged), ex.ctx.bv(origin, 16), {}};
  for (unsigned f = 0; f < ex.ctx.numFields; ++f)
    tag.fields.push_back(f < fn.fields.size() ? z3::expr(fn.fields[f]).substitute(from, to).simplify()
                                              : ex.ctx.index(0));
  return tag;
}

/// The DSL name of a kernel's tensor argument.
std::string tensorName(Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return "";
  auto fn = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  auto names = fn ? fn->getAttrOfType<ArrayAttr>(kernel_attr::kArgNames) : ArrayAttr();
  if (!names || arg.getArgNumber() >= names.size())
    return "";
  return cast<StringAttr>(names[arg.getArgNumber()]).str();
}

class ReplayObserver : public interp::RunObserver {
public:
  ReplayObserver(Executor &ex, const Inputs &in, const Finding &f) : ex(ex), in(in), f(f) {}

  void onAssertTag(Operation *op, const interp::ObservedContext &ctx,
                   llvm::ArrayRef<std::vector<double>> values,
                   llvm::ArrayRef<llvm::SmallVector<int64_t, 4>> shapes) override {
    if (f.kind != CheckKind::TagAssertion || seen || f.accesses.empty() ||
        interp::formatLocation(op->getLoc()) != f.accesses[0].point.location ||
        !sameInstance(ctx, f.accesses[0], op))
      return;
    seen = true;
    std::vector<TagExpr> tags;
    for (size_t i = 0; i < values.size(); ++i) {
      int64_t linear = 0;
      for (size_t d = 0; d < shapes[i].size() && d < f.accesses[0].element.size(); ++d)
        linear = linear * shapes[i][d] + f.accesses[0].element[d];
      double v = linear < static_cast<int64_t>(values[i].size()) ? values[i][linear] : 1.5;
      // Masked-out padding (0) names no element: the replay cannot tell its tag.
      padding = padding || v == 0.0;
      tags.push_back(decode(ex, in, v));
    }
    auto event = std::find_if(ex.exec.asserts.begin(), ex.exec.asserts.end(),
                              [&](const AssertEvent &e) { return e.at.op == op; });
    if (event == ex.exec.asserts.end())
      return;
    auto [holds, missing] = evaluateAssertion(ex, *event, tags);
    z3::expr ok = holds && !missing;
    for (const TagExpr &t : tags)
      ok = ok && t.state == ex.ctx.state(TagState::Tagged);
    violated = ok.simplify().is_false();
    z3::solver s(ex.ctx.z3);
    s.check();
    z3::model m = s.get_model();
    observed.clear();
    for (const TagExpr &t : tags)
      observed += (observed.empty() ? "" : ", ") + formatTag(tagOf(ex, m, t));
  }

  /// Async races: is access b run while a's copy is still pending? Copies
  /// retire in issue order, so a FIFO per copy op tells which one retires.
  void onBufferAccess(Operation *op, const interp::ObservedContext &ctx, bool, bool asyncCompletion,
                      llvm::ArrayRef<int64_t> slot) override {
    if (f.kind != CheckKind::AsyncRace || f.accesses.size() != 2 || raceSeen)
      return;
    const Access &a = f.accesses[0], &b = f.accesses[1];
    std::string where = interp::formatLocation(op->getLoc());
    if (where == a.point.location && static_cast<int64_t>(ctx.thread) == a.thread) {
      if (!asyncCompletion) {
        bool target = sameInstance(ctx, a, op) && std::vector<int64_t>(slot.begin(), slot.end()) == a.slot;
        issued.push_back(target);
        pending = pending || target;
      } else if (!issued.empty()) {
        if (issued.front())
          pending = false;
        issued.erase(issued.begin());
      }
      if (&a != &b && where != b.point.location)
        return;
    }
    if (!asyncCompletion && pending && where == b.point.location &&
        static_cast<int64_t>(ctx.thread) == b.thread && sameInstance(ctx, b, op) &&
        std::vector<int64_t>(slot.begin(), slot.end()) == b.slot)
      raceSeen = true;
  }

  void onBufferLoad(Operation *op, const interp::ObservedContext &ctx, llvm::ArrayRef<int64_t>,
                    llvm::ArrayRef<double> values) override {
    if (f.kind != CheckKind::UninitializedRead || seen || f.accesses.empty() ||
        interp::formatLocation(op->getLoc()) != f.accesses[0].point.location ||
        !sameInstance(ctx, f.accesses[0], op))
      return;
    seen = true;
    int64_t linear = 0;
    auto shape = llvm::cast<TileType>(op->getResult(0).getType()).getShape();
    for (size_t d = 0; d < shape.size() && d < f.accesses[0].element.size(); ++d)
      linear = linear * shape[d] + f.accesses[0].element[d];
    double v = linear < static_cast<int64_t>(values.size()) ? values[linear] : 0.0;
    // Poison: NaN for floats, the most negative integer for integers.
    violated = std::isnan(v) || v <= -9.2e18;
    if (violated) {
      observed = "poison (never written)";
      return;
    }
    z3::solver s(ex.ctx.z3);
    s.check();
    observed = formatTag(tagOf(ex, s.get_model(), decode(ex, in, v))) +
               " (a reset_tags, which has no run-time effect, may hide a real write)";
  }

  void onStore(Operation *op, const interp::ObservedContext &ctx, llvm::ArrayRef<int64_t> offsets,
               llvm::ArrayRef<int64_t> shape) override {
    if (f.accesses.empty() || f.accesses[0].element.size() != offsets.size() ||
        tensorName(op->getOperand(1)) != f.accesses[0].target)
      return;
    const std::vector<int64_t> &e = f.accesses[0].element;
    for (size_t d = 0; d < offsets.size(); ++d)
      if (e[d] < offsets[d] || e[d] >= offsets[d] + shape[d])
        return;
    writers.push_back("block (" + std::to_string(ctx.programId[0]) + ", " +
                      std::to_string(ctx.programId[1]) + ", " + std::to_string(ctx.programId[2]) +
                      ") thread " + std::to_string(ctx.thread) + " at " +
                      interp::formatLocation(op->getLoc()));
  }

  Executor &ex;
  const Inputs &in;
  const Finding &f;
  bool seen = false, violated = false, padding = false;
  std::vector<bool> issued;          // async copies of access a's op, oldest first: is it a's instance?
  bool pending = false, raceSeen = false;
  std::string observed;
  std::vector<std::string> writers;
};

} // namespace

/// Whether the assertion `a` names is a mask assertion.
static bool isMaskAssertion(func::FuncOp kernel, const Access &a) {
  bool mask = false;
  kernel.walk([&](AssertTagOp op) {
    if (interp::formatLocation(op->getLoc()) == a.point.location && op.getMask())
      mask = true;
  });
  return mask;
}

Replay replayFinding(Executor &ex, func::FuncOp kernel, const Finding &f) {
  Replay r;
  switch (f.kind) {
  case CheckKind::Race:
    r.status = Replay::Status::NotConfirmed;
    r.detail = "the interpreter runs threads in lockstep and retires async copies at their "
               "waits, so it cannot show this interleaving; the counterexample comes from the "
               "proof alone";
    return r;
  case CheckKind::BankConflict:
    r.status = Replay::Status::NotConfirmed;
    r.detail = "bank conflicts cost time, not values: nothing to replay";
    return r;
  case CheckKind::Unsupported:
    return r;
  case CheckKind::TagAssertion:
    if (!f.accesses.empty() && f.accesses[0].element.size() == 3 && isMaskAssertion(kernel, f.accesses[0])) {
      r.status = Replay::Status::NotConfirmed;
      r.detail = "mask assertions are not replayed (their relation reads the kernel's sizes and scalars); the "
                 "counterexample comes from the proof alone";
      return r;
    }
    break;
  default:
    break;
  }
  Inputs in;
  if (std::string why = buildInputs(ex, kernel, f, in); !why.empty()) {
    r.status = Replay::Status::NotConfirmed;
    r.detail = why;
    return r;
  }
  ReplayObserver observer(ex, in, f);
  interp::RunOptions options;
  options.observer = &observer;
  bool oneInstance = f.kind == CheckKind::TagAssertion || f.kind == CheckKind::UninitializedRead ||
                     f.kind == CheckKind::DivergentBarrier || f.kind == CheckKind::AsyncRace;
  if (oneInstance && !f.accesses.empty() && f.accesses[0].block.size() == 3)
    options.onlyInstance = std::array<int64_t, 3>{f.accesses[0].block[0], f.accesses[0].block[1],
                                                  f.accesses[0].block[2]};
  llvm::Error error = interp::runKernel(kernel, in.args, options);
  std::string message = error ? llvm::toString(std::move(error)) : "";

  switch (f.kind) {
  case CheckKind::AsyncRace:
    if (!message.empty()) {
      r.status = Replay::Status::Failed;
      r.detail = message;
    } else if (observer.raceSeen) {
      r.status = Replay::Status::Confirmed;
      r.detail = "the interpreter ran " + f.accesses[1].point.op + " at " +
                 f.accesses[1].point.location + " while the copy issued at " +
                 f.accesses[0].point.location + " into the same slot was still pending";
    } else {
      r.status = Replay::Status::NotConfirmed;
      r.detail = "on the interpreter's schedule (threads in lockstep, copies retired at their "
                 "waits) the copy had landed before the access; the counterexample comes from "
                 "the proof alone";
    }
    return r;
  case CheckKind::DivergentBarrier:
    r.status = message.find("divergent") != std::string::npos ? Replay::Status::Confirmed
                                                              : Replay::Status::NotConfirmed;
    r.detail = message.empty() ? "the interpreter ran the counterexample without divergence"
                               : "the interpreter stopped: " + message;
    return r;
  case CheckKind::OutOfBounds:
    r.status = message.empty() ? Replay::Status::NotConfirmed : Replay::Status::Confirmed;
    r.detail = message.empty() ? "the interpreter ran the counterexample's sizes without an "
                                 "out-of-bounds access"
                               : "the interpreter stopped: " + message;
    return r;
  case CheckKind::UninitializedRead:
    if (!message.empty()) {
      r.status = Replay::Status::Failed;
      r.detail = message;
    } else {
      r.status = observer.violated ? Replay::Status::Confirmed : Replay::Status::NotConfirmed;
      r.detail = !observer.seen ? "the interpreter never reached the read with the "
                                  "counterexample's thread and iterations"
                                : "the interpreter read " + observer.observed + " there";
    }
    return r;
  case CheckKind::TagAssertion:
    if (!message.empty()) {
      r.status = Replay::Status::Failed;
      r.detail = message;
    } else if (!observer.seen) {
      r.status = Replay::Status::NotConfirmed;
      r.detail = "the interpreter never reached the assertion with the counterexample's thread "
                 "and iterations";
    } else {
      bool confirmed = observer.violated && !observer.padding;
      r.status = confirmed ? Replay::Status::Confirmed : Replay::Status::NotConfirmed;
      r.detail = "the interpreter's operands carry tags " + observer.observed +
                 (observer.padding ? ", one of them masked-out padding whose tag a value cannot show"
                  : observer.violated ? ", which violate the assertion"
                                      : ", which satisfy the assertion");
    }
    return r;
  case CheckKind::DoubleWrite:
  case CheckKind::UnwrittenOutput: {
    if (!message.empty()) {
      r.status = Replay::Status::Failed;
      r.detail = message;
      return r;
    }
    size_t n = observer.writers.size();
    bool confirmed = f.kind == CheckKind::DoubleWrite ? n >= 2 : n == 0;
    r.status = confirmed ? Replay::Status::Confirmed : Replay::Status::NotConfirmed;
    r.detail = "the interpreter wrote the element " + std::to_string(n) + " time(s)";
    for (size_t i = 0; i < n && i < 2; ++i)
      r.detail += (i ? "; " : ": ") + observer.writers[i];
    return r;
  }
  default:
    return r;
  }
}

} // namespace argus::verify::detail
