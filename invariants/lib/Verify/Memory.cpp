//===- Memory.cpp - reaching writes of a buffer element -----------------===//

#include "Memory.h"

#include <algorithm>

namespace argus::verify::detail {

namespace {

z3::expr rowMajor(SymContext &ctx, const std::vector<z3::expr> &coords,
                  llvm::ArrayRef<int64_t> shape) {
  z3::expr linear = ctx.index(0);
  for (size_t i = 0; i < coords.size(); ++i)
    linear = linear * ctx.index(shape[i]) + coords[i];
  return linear;
}

std::vector<z3::expr> unRowMajor(SymContext &ctx, const z3::expr &linear,
                                 llvm::ArrayRef<int64_t> shape) {
  std::vector<z3::expr> coords;
  int64_t stride = 1;
  for (int64_t s : shape)
    stride *= s;
  for (int64_t s : shape) {
    stride /= s;
    coords.push_back(z3::urem(z3::udiv(linear, ctx.index(stride)), ctx.index(s)));
  }
  return coords;
}

int64_t product(llvm::ArrayRef<int64_t> shape) {
  int64_t p = 1;
  for (int64_t s : shape)
    p *= s;
  return p;
}

void append(z3::expr_vector &from, z3::expr_vector &to, const z3::expr &f, const z3::expr &t) {
  from.push_back(f);
  to.push_back(t);
}

z3::expr_vector copyOf(const z3::expr_vector &v) {
  z3::expr_vector out(v.ctx());
  for (unsigned i = 0; i < v.size(); ++i)
    out.push_back(v[i]);
  return out;
}

} // namespace

z3::expr physicalOffset(SymContext &ctx, const BufferInfo &buffer,
                        const std::vector<z3::expr> &slot, const std::optional<PhysicalMap> &view,
                        const std::vector<z3::expr> &element) {
  llvm::ArrayRef<int64_t> shape(buffer.shape);
  if (view) {
    std::vector<z3::expr> base = slot;
    while (base.size() < shape.size())
      base.push_back(ctx.index(0));
    z3::expr inSlot = rowMajor(ctx, element, shape.drop_front(slot.size()));
    return rowMajor(ctx, base, shape) + view->apply(ctx, inSlot);
  }
  std::vector<z3::expr> full = slot;
  full.insert(full.end(), element.begin(), element.end());
  z3::expr linear = rowMajor(ctx, full, shape);
  return buffer.map.apply(ctx, linear);
}

std::pair<z3::expr, std::vector<z3::expr>>
MemoryModel::locate(const BufferInfo &buffer, const SlotWrite &w, const std::vector<z3::expr> &slot,
                    const ReadPoint &at) {
  llvm::ArrayRef<int64_t> shape(buffer.shape);
  std::vector<z3::expr> full = at.slot;
  full.insert(full.end(), at.element.begin(), at.element.end());
  if (w.view == at.view) {
    // One injective map on both sides: same physical offset iff same coordinates.
    z3::expr covered = ctx.z3.bool_val(true);
    for (size_t i = 0; i < slot.size(); ++i)
      covered = covered && full[i] == slot[i];
    return {covered, std::vector<z3::expr>(full.begin() + slot.size(), full.end())};
  }
  // Different maps: go through the physical offset and invert the writer's map.
  z3::expr p = physicalOffset(ctx, buffer, at.slot, at.view, at.element);
  llvm::ArrayRef<int64_t> tileShape = shape.drop_front(slot.size());
  if (w.view) {
    std::vector<z3::expr> base = slot;
    while (base.size() < shape.size())
      base.push_back(ctx.index(0));
    z3::expr off = p - rowMajor(ctx, base, shape);
    z3::expr covered = off >= ctx.index(0) && off < ctx.index(product(tileShape));
    return {covered, unRowMajor(ctx, w.view->invert(ctx, off), tileShape)};
  }
  z3::expr q = buffer.map.invert(ctx, p);
  std::vector<z3::expr> coords = unRowMajor(ctx, q, shape);
  z3::expr covered = q >= ctx.index(0) && q < ctx.index(product(shape));
  for (size_t i = 0; i < slot.size(); ++i)
    covered = covered && coords[i] == slot[i];
  return {covered, std::vector<z3::expr>(coords.begin() + slot.size(), coords.end())};
}

TagExpr MemoryModel::applyWrite(const BufferInfo &buffer, const SlotWrite &w,
                                const z3::expr_vector &from, const z3::expr_vector &to,
                                const ReadPoint &at, TagExpr acc) {
  // The writer: any thread of the instance for shared buffers, else the reader.
  std::vector<std::optional<int64_t>> writers;
  // (Beyond kMaxWriterThreads the executor reports the read as not modelled.)
  if (buffer.shared && numThreads > 1 && numThreads <= kMaxWriterThreads)
    for (int64_t t = 0; t < numThreads; ++t)
      writers.push_back(t);
  else
    writers.push_back(std::nullopt);

  for (const std::optional<int64_t> &writer : writers) {
    z3::expr_vector f = copyOf(from), t = copyOf(to);
    if (writer)
      append(f, t, at.thread, ctx.index(*writer));
    z3::expr guard = z3::expr(w.guard).substitute(f, t);
    if (w.reset) {
      acc = iteTag(guard, ctx.unwritten(), acc);
      continue;
    }
    std::vector<z3::expr> slot;
    for (const z3::expr &s : w.slot)
      slot.push_back(z3::expr(s).substitute(f, t));
    // A tag binding (`whole`) covers the buffer: no slot prefix, its own layout.
    auto [covered, element] = locate(buffer, w, slot, at);
    TileTag value{w.value.coords, w.value.body.substitute(f, t)};
    TagExpr written = value.at(element);
    if (w.async) {
      z3::expr seq = z3::expr(*w.seq).substitute(f, t);
      z3::expr visible = at.done > seq;
      if (writer) {
        z3::expr_vector tf(ctx.z3), tt(ctx.z3);
        append(tf, tt, at.thread, ctx.index(*writer));
        z3::expr otherSees = z3::expr(at.doneAtBarrier).substitute(tf, tt) > seq;
        visible = z3::ite(at.thread == ctx.index(*writer), visible, otherSees);
      }
      written = iteTag(visible, written, ctx.unknown());
    }
    acc = iteTag(guard && covered, written, acc);
  }
  return acc;
}

z3::expr MemoryModel::mayCover(const BufferInfo &buffer, const std::vector<HistoryItem> &items,
                               const z3::expr_vector &from, const z3::expr_vector &to,
                               const ReadPoint &at) {
  z3::expr any = ctx.z3.bool_val(false);
  for (const HistoryItem &item : items) {
    if (item.kind == HistoryItem::Kind::Write) {
      // A write covers the element iff it turns the element into a defined tag.
      TagExpr probe = applyWrite(buffer, *item.write, from, to, at, ctx.unwritten());
      if (!item.write->reset)
        any = any || probe.state != ctx.state(TagState::Unwritten);
      continue;
    }
    const LoopFrame &fr = item.loop->frame;
    z3::expr k = ctx.choice("older iteration of " + fr.name, kIndexBits, at.position);
    z3::expr_vector f = copyOf(from), t = copyOf(to);
    append(f, t, fr.iv, z3::expr(fr.lb).substitute(from, to) + k * z3::expr(fr.step).substitute(from, to));
    any = any || (k >= ctx.index(0) && mayCover(buffer, item.loop->body, f, t, at));
  }
  return any;
}

TagExpr MemoryModel::applyLoop(const BufferInfo &buffer, const LoopRecord &loop, bool current,
                               const z3::expr_vector &from, const z3::expr_vector &to,
                               const ReadPoint &at, TagExpr acc) {
  const LoopFrame &fr = loop.frame;
  z3::expr lb = z3::expr(fr.lb).substitute(from, to), step = z3::expr(fr.step).substitute(from, to);
  // The reader is at iteration k of this loop, or after all of its iterations.
  z3::expr k = (current ? z3::expr(fr.iteration).substitute(from, to)
                        : z3::expr(fr.trips).substitute(from, to))
                   .simplify();
  // A ring of S slots is rewritten every S iterations at most: a longer
  // window adds terms, not precision. A loop of known length needs no more,
  // and one that can give each of up to kExactSlots slots its own iteration
  // (`for h in range(H): acc[h].store(...)`, read in a later loop) is replayed
  // whole: the window would leave its first slots unknown.
  const int64_t slots = buffer.shape.empty() ? 1 : std::max<int64_t>(buffer.shape[0], 1);
  int64_t depth = std::min<int64_t>(slots, window);
  int64_t known = 0;
  bool bounded = k.is_numeral_i64(known);
  if (bounded)
    depth = std::min<int64_t>(std::min<int64_t>(slots, std::max<int64_t>(window, kExactSlots)),
                              std::max<int64_t>(known, 0));

  // Iterations older than the window: unknown wherever they could have written.
  if (!bounded || known > depth) {
    z3::expr old = ctx.choice("older iteration of " + fr.name, kIndexBits, at.position);
    z3::expr_vector f = copyOf(from), t = copyOf(to);
    append(f, t, fr.iv, lb + old * step);
    z3::expr cond = old >= ctx.index(0) && old + ctx.index(depth) < k &&
                    mayCover(buffer, loop.body, f, t, at);
    acc = iteTag(cond, ctx.unknown(), acc);
  }
  // The window, oldest first. The body's guards hold the loop range, so an
  // iteration before the first one covers nothing.
  for (int64_t d = depth; d >= 1; --d) {
    z3::expr_vector f = copyOf(from), t = copyOf(to);
    append(f, t, fr.iv, lb + (k - ctx.index(d)) * step);
    acc = fold(buffer, loop.body, f, t, at, acc);
  }
  return acc;
}

TagExpr MemoryModel::fold(const BufferInfo &buffer, const std::vector<HistoryItem> &items,
                          const z3::expr_vector &from, const z3::expr_vector &to,
                          const ReadPoint &at, TagExpr acc) {
  for (const HistoryItem &item : items) {
    switch (item.kind) {
    case HistoryItem::Kind::Write:
      acc = applyWrite(buffer, *item.write, from, to, at, acc);
      break;
    case HistoryItem::Kind::Loop:
      acc = applyLoop(buffer, *item.loop, /*current=*/false, from, to, at, acc);
      break;
    case HistoryItem::Kind::Current:
      acc = applyLoop(buffer, *item.loop, /*current=*/true, from, to, at, acc);
      break;
    }
  }
  return acc;
}

TagExpr MemoryModel::read(const BufferInfo &buffer, const History &history, const ReadPoint &at) {
  z3::expr_vector none(ctx.z3);
  return fold(buffer, history, none, none, at, ctx.unwritten());
}

} // namespace argus::verify::detail
