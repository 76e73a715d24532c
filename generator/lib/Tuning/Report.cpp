//===- Report.cpp - OUT/report.html: what a build chose and how fast ------===//
#include "argus/Tuning/Report.h"

#include "argus/Tuning/Sweep.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <sstream>

namespace argus::tuning {

std::string peaksToJson(const machine::Peaks &p) {
  return nlohmann::json{{"threads", p.threads},
                        {"f32_gflops", p.f32Gflops},
                        {"bf16_gflops", p.bf16Gflops},
                        {"read_gbps", p.readGbps}}
      .dump();
}

bool peaksFromJson(const std::string &text, machine::Peaks &p) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  for (const char *key : {"threads", "f32_gflops", "bf16_gflops", "read_gbps"})
    if (!j.contains(key) || !j[key].is_number()) return false;
  p.threads = j["threads"];
  p.f32Gflops = j["f32_gflops"];
  p.bf16Gflops = j["bf16_gflops"];
  p.readGbps = j["read_gbps"];
  return true;
}

namespace {

std::string escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string duration(double s) {
  return s < 1e-3 ? fixed(s * 1e6, 1) + " µs" : s < 1 ? fixed(s * 1e3, 2) + " ms" : fixed(s, 2) + " s";
}

size_t bytesOf(const std::string &dtype) { return dtype == "f32" ? 4 : dtype == "fp8" ? 1 : 2; }

/// One configuration of the table: a GEMM shape at one probe row count.
struct Row {
  std::string ops, types, buckets, tiles, key;
  int64_t n = 0, k = 0, m = 0;
  int tried = 0, usable = 0;
  std::optional<CandidateResult> best, rule;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
  double bytes(const emit::GemmTypes &t) const {
    return double((m * k + n * k) * bytesOf(t.a) + m * n * bytesOf(t.c));
  }
  emit::GemmTypes dtypes;
};

std::vector<Row> tableRows(const ReportInput &in) {
  std::map<std::string, std::vector<CandidateResult>> byKey;
  if (in.db)
    for (CandidateResult &r : in.db->results())
      if (r.key.op == "gemm") byKey[r.key.shapeKey].push_back(std::move(r));
  std::vector<Row> rows;
  for (const emit::GemmGroup &g : in.plan->groups) {
    std::string ops;
    for (const std::string &op : g.ops) ops += (ops.empty() ? "" : ", ") + op;
    int64_t lo = 1;
    std::map<int64_t, size_t> rowOfProbe;
    for (size_t i = 0; i < g.bucketBounds.size(); ++i) {
      const int64_t hi = g.bucketBounds[i];
      const bool last = i + 1 == g.bucketBounds.size();
      const int64_t probe = gemmProbeRows(hi, g.n, g.k, in.maxProbeFlops);
      const emit::GemmTiles &tiles = in.plan->kernels[g.kernelPerBucket[i]].tiles;
      std::string range = last ? std::to_string(lo) + "+" : lo == hi ? std::to_string(lo) : std::to_string(lo) + "–" + std::to_string(hi);
      lo = hi + 1;
      auto [it, fresh] = rowOfProbe.try_emplace(probe, rows.size());
      if (!fresh) {
        Row &row = rows[it->second];
        row.buckets += ", " + range;
        if (row.tiles.find(gemmParameters(tiles)) == std::string::npos) row.tiles += "; " + gemmParameters(tiles);
        continue;
      }
      Row row;
      row.ops = ops;
      row.dtypes = g.types;
      row.types = g.types.a + " → " + g.types.c;
      row.n = g.n;
      row.k = g.k;
      row.m = probe;
      row.buckets = range;
      row.tiles = gemmParameters(tiles);
      row.key = gemmShapeKey(g.types, g.n, g.k, probe);
      const std::string ruleParams =
          gemmParameters(emit::chooseCpuGemmTiles(hi, g.n, g.k, g.types, codegen::cpuTargetWidensBf16(in.target)));
      for (const CandidateResult &r : byKey[row.key]) {
        ++row.tried;
        bool usable = r.verification == Verification::Proved && r.correct && r.seconds > 0;
        row.usable += usable;
        if (usable && r.key.parameters == ruleParams) row.rule = r;
      }
      if (in.db) row.best = in.db->best("gemm", row.key);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

/// One tuned attention or MoE configuration.
struct KernelRow {
  std::string kind, kernel, key, op, dtype, chosen, rule;
  double flops = 0, bytes = 0;
  int tried = 0, usable = 0;
  std::optional<CandidateResult> best, ruleResult;
};

std::vector<KernelRow> kernelRows(const ReportInput &in) {
  std::vector<KernelRow> rows;
  if (!in.configs) return rows;
  auto fill = [&](KernelRow &r) {
    if (!in.db) return;
    for (const CandidateResult &c : in.db->results()) {
      if (c.key.op != r.op || c.key.shapeKey != r.key) continue;
      ++r.tried;
      bool usable = c.verification == Verification::Proved && c.correct && c.seconds > 0;
      r.usable += usable;
      if (usable && c.key.parameters == r.rule) r.ruleResult = c;
    }
    r.best = in.db->best(r.op, r.key);
    if (r.best) r.chosen = r.best->key.parameters;
  };
  for (const emit::AttentionKernel &k : emit::planAttention(*in.configs)) {
    if (!k.inCatalog || k.kind != emit::AttentionKind::Prefill) continue;
    KernelRow r;
    r.kind = "prefill attention";
    r.kernel = k.symbol;
    r.op = "attention_prefill";
    r.key = attentionShapeKey(k);
    r.dtype = k.dtype;
    r.rule = r.chosen = attentionParameters(emit::chooseCpuAttentionTiles(k));
    const double s = double(kAttentionProbeTokens), pairs = s * (s + 1) / 2, heads = double(k.group);
    r.flops = 2.0 * pairs * double(k.headDim + k.vHeadDim) * heads;
    r.bytes = s * double(bytesOf(k.dtype)) * (double(k.headDim) * (heads + 1) + double(k.vHeadDim) * (heads + 1));
    fill(r);
    rows.push_back(r);
  }
  const bool bf16InF32 = codegen::cpuTargetWidensBf16(in.target);
  for (const emit::MoeEntry &e : emit::planMoe(*in.configs, nullptr, bf16InF32)) {
    if (!e.inCatalog) continue;
    for (int64_t bm : emit::moeTierBlockRows())
      for (emit::MoeRole role : {emit::MoeRole::GateUp, emit::MoeRole::Down}) {
        bool gateUp = role == emit::MoeRole::GateUp;
        KernelRow r;
        r.kind = gateUp ? "MoE gate/up" : "MoE down";
        const emit::GemmTiles rule = emit::chooseCpuMoeTilesOnTarget(role, e.dtype, bm, bf16InF32);
        r.kernel = emit::moeKernel(role, e, rule).symbol;
        r.op = gateUp ? "moe_gate_up" : "moe_down";
        r.key = moeShapeKey(role, e, bm);
        r.dtype = e.dtype;
        r.rule = r.chosen = gemmParameters(rule);
        double m = double(moeProbeRows(bm)), n = double(gateUp ? e.intermediate : e.hidden),
               k = double(gateUp ? e.hidden : e.intermediate), weights = gateUp ? 2 : 1;
        r.flops = 2.0 * m * n * k * weights;
        r.bytes = double(bytesOf(e.dtype)) * (m * k + weights * n * k) + m * n * (gateUp ? double(bytesOf(e.dtype)) : 4);
        fill(r);
        rows.push_back(r);
      }
  }
  return rows;
}

double computeRoof(const machine::Peaks &p, const emit::GemmTypes &t) {
  return t.a == "f32" ? p.f32Gflops : p.bf16Gflops;
}

/// The roofline: log-log, arithmetic intensity (FLOP/byte) against GFLOP/s.
std::string roofline(const ReportInput &in, const std::vector<Row> &rows) {
  struct Point {
    double ai, gflops;
    std::string label, dtype;
    size_t series;
  };
  std::vector<Point> points;
  std::map<std::string, size_t> seriesOf;
  for (const Row &r : rows) {
    if (!r.best) continue;
    auto [it, _] = seriesOf.try_emplace(r.ops, seriesOf.size());
    double gflops = r.flops() / r.best->seconds * 1e-9;
    points.push_back({r.flops() / r.bytes(r.dtypes), gflops,
                      r.ops + " M=" + std::to_string(r.m) + " N=" + std::to_string(r.n) + " K=" + std::to_string(r.k) +
                          ": " + fixed(gflops, 1) + " GFLOP/s",
                      r.dtypes.a, it->second});
  }
  const machine::Peaks &p = in.peaks;
  std::vector<std::pair<std::string, double>> roofs;
  if (p.bf16Gflops > 0) roofs.push_back({"bf16", p.bf16Gflops});
  if (p.f32Gflops > 0) roofs.push_back({"f32", p.f32Gflops});
  if (points.empty() && roofs.empty()) return "<p>Nothing was measured, so there is no roofline.</p>";

  double xmin = 0.25, xmax = 1024, ymin = 1, ymax = 10;
  for (const Point &pt : points) {
    xmin = std::min(xmin, pt.ai / 2), xmax = std::max(xmax, pt.ai * 2);
    ymin = std::min(ymin, pt.gflops / 2), ymax = std::max(ymax, pt.gflops * 2);
  }
  for (const auto &[name, peak] : roofs) ymax = std::max(ymax, peak * 2);
  xmin = std::pow(2, std::floor(std::log2(xmin))), xmax = std::pow(2, std::ceil(std::log2(xmax)));
  ymin = std::pow(10, std::floor(std::log10(ymin))), ymax = std::pow(10, std::ceil(std::log10(ymax)));
  const double W = 760, H = 440, left = 70, right = 20, top = 20, bottom = 50;
  auto X = [&](double v) { return left + (std::log(v) - std::log(xmin)) / (std::log(xmax) - std::log(xmin)) * (W - left - right); };
  auto Y = [&](double v) { return H - bottom - (std::log(v) - std::log(ymin)) / (std::log(ymax) - std::log(ymin)) * (H - top - bottom); };
  static const char *colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
    << " " << H << "\" role=\"img\" aria-label=\"roofline\">\n"
    << "<rect x=\"0\" y=\"0\" width=\"" << W << "\" height=\"" << H << "\" fill=\"#fff\"/>\n";
  for (double x = xmin; x <= xmax * 1.0001; x *= 4)
    s << "<line x1=\"" << fixed(X(x), 1) << "\" y1=\"" << top << "\" x2=\"" << fixed(X(x), 1) << "\" y2=\"" << H - bottom
      << "\" stroke=\"#ddd\"/><text x=\"" << fixed(X(x), 1) << "\" y=\"" << H - bottom + 16
      << "\" text-anchor=\"middle\" class=\"tick\">" << (x < 1 ? fixed(x, 2) : fixed(x, 0)) << "</text>\n";
  for (double y = ymin; y <= ymax * 1.0001; y *= 10)
    s << "<line x1=\"" << left << "\" y1=\"" << fixed(Y(y), 1) << "\" x2=\"" << W - right << "\" y2=\"" << fixed(Y(y), 1)
      << "\" stroke=\"#ddd\"/><text x=\"" << left - 6 << "\" y=\"" << fixed(Y(y) + 4, 1)
      << "\" text-anchor=\"end\" class=\"tick\">" << fixed(y, y < 1 ? 2 : 0) << "</text>\n";
  s << "<text x=\"" << (left + W - right) / 2 << "\" y=\"" << H - 10
    << "\" text-anchor=\"middle\">arithmetic intensity (FLOP per byte of A, B and C)</text>\n"
    << "<text transform=\"translate(16," << (top + H - bottom) / 2
    << ") rotate(-90)\" text-anchor=\"middle\">GFLOP/s</text>\n";
  for (const auto &[name, peak] : roofs) {
    if (p.readGbps <= 0) continue;
    double ridge = peak / p.readGbps;
    double x0 = std::max(xmin, ymin / p.readGbps);
    s << "<polyline class=\"roof\" fill=\"none\" stroke=\"#444\" stroke-width=\"2\" points=\"" << fixed(X(x0), 1) << ","
      << fixed(Y(x0 * p.readGbps), 1) << " " << fixed(X(std::min(ridge, xmax)), 1) << ","
      << fixed(Y(std::min(ridge, xmax) * p.readGbps), 1) << " " << fixed(X(xmax), 1) << "," << fixed(Y(peak), 1)
      << "\"/>\n<text x=\"" << W - right - 4 << "\" y=\"" << fixed(Y(peak) - 6, 1) << "\" text-anchor=\"end\">" << name
      << " peak " << fixed(peak, 0) << " GFLOP/s</text>\n";
  }
  if (p.readGbps > 0)
    s << "<text x=\"" << left + 8 << "\" y=\"" << top + 14 << "\">memory roof: read " << fixed(p.readGbps, 1)
      << " GB/s, " << p.threads << " threads</text>\n";
  for (const Point &pt : points)
    s << "<circle class=\"point\" cx=\"" << fixed(X(pt.ai), 1) << "\" cy=\"" << fixed(Y(pt.gflops), 1)
      << "\" r=\"5\" fill=\"" << colours[pt.series % 8] << "\"><title>" << escape(pt.label) << "</title></circle>\n";
  double ly = top + 30;
  for (const auto &[ops, series] : seriesOf) {
    s << "<circle cx=\"" << left + 14 << "\" cy=\"" << ly + series * 18 << "\" r=\"5\" fill=\"" << colours[series % 8]
      << "\"/><text x=\"" << left + 24 << "\" y=\"" << ly + series * 18 + 4 << "\">" << escape(ops) << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

} // namespace

std::string renderReport(const ReportInput &in) {
  std::vector<Row> rows = tableRows(in);
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>Argus kernels: " << escape(in.model)
    << " on " << escape(in.target) << "</title>\n<style>\n"
    << "body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;font-size:13px}"
    << "th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}th{background:#f0f0f0}"
    << "td.l,th.l{text-align:left}tr:nth-child(even) td{background:#fafafa}.tick{font-size:11px;fill:#555}"
    << "svg text{font-size:12px}.note{color:#555;font-size:13px;max-width:60em}\n</style></head><body>\n"
    << "<h1>Argus kernels: " << escape(in.model) << " on " << escape(in.target) << "</h1>\n"
    << "<p class=\"note\">Catalog " << escape(in.catalogFile) << " (hash " << escape(in.catalogHash.substr(0, 16))
    << ")";
  if (in.db) {
    const DbIdentity &id = in.db->identity();
    h << "; tuned by argus-gen " << escape(id.generatorVersion) << " on " << escape(id.device) << " ("
      << escape(id.toolchain) << ")";
  }
  h << ".</p>\n<h2>GEMM configurations</h2>\n";
  if (!in.db)
    h << "<p class=\"note\">Built without a sweep (<code>--budget 0</code>): tiles by rule, nothing timed.</p>\n";
  h << "<p class=\"note\">Each configuration is one GEMM shape measured at M rows (a bucket's upper bound, capped at "
    << fixed(in.maxProbeFlops * 1e-9, 0)
    << " GFLOP per call), median of 3-9 timed samples on all threads, outputs checked against float64 first. "
       "&ldquo;vs rule&rdquo; divides the rule's tiles' time by the chosen kernel's, both from the same sweep. "
       "Roof: the lower of the compute peak of the dtype and intensity × read bandwidth, both measured on this "
       "machine; the read bandwidth is DRAM's, so shapes whose operands stay in the caches can pass 100%. No "
       "external library was timed by the sweep.</p>\n"
    << "<table>\n<tr><th class=\"l\">ops</th><th class=\"l\">dtypes</th><th>N</th><th>K</th><th>M</th>"
    << "<th class=\"l\">buckets (M)</th><th class=\"l\">kernel tiles</th><th>candidates</th><th>time</th>"
    << "<th>GFLOP/s</th><th>GB/s</th><th>of roof</th><th>vs rule</th></tr>\n";
  for (const Row &r : rows) {
    h << "<tr><td class=\"l\">" << escape(r.ops) << "</td><td class=\"l\">" << escape(r.types) << "</td><td>" << r.n
      << "</td><td>" << r.k << "</td><td>" << r.m << "</td><td class=\"l\">" << escape(r.buckets)
      << "</td><td class=\"l\">" << escape(r.tiles) << "</td><td>" << r.usable << " / " << r.tried << "</td>";
    if (r.best) {
      double t = r.best->seconds, gflops = r.flops() / t * 1e-9, gbps = r.bytes(r.dtypes) / t * 1e-9;
      double ai = r.flops() / r.bytes(r.dtypes);
      double roof = std::min(computeRoof(in.peaks, r.dtypes), ai * in.peaks.readGbps);
      h << "<td>" << duration(t) << "</td><td>" << fixed(gflops, 1) << "</td><td>" << fixed(gbps, 1) << "</td><td>"
        << (roof > 0 ? fixed(100 * gflops / roof, 0) + "%" : "–") << "</td><td>"
        << (r.rule ? fixed(r.rule->seconds / t, 2) + "×" : "–") << "</td></tr>\n";
    } else {
      h << "<td colspan=\"5\">not measured</td></tr>\n";
    }
  }
  h << "</table>\n";
  std::vector<KernelRow> kernels = kernelRows(in);
  if (!kernels.empty()) {
    h << "<h2>Attention and MoE configurations</h2>\n<p class=\"note\">Prefill attention is measured causal at "
      << kAttentionProbeTokens
      << " tokens with one KV head and its query heads (FLOPs of the causal half); an MoE tier at its probe rows "
         "(decode tiers on one thread, as the runtime runs them). Outputs checked against float64 in full first.</p>\n"
      << "<table>\n<tr><th class=\"l\">kind</th><th class=\"l\">kernel</th><th class=\"l\">probe</th>"
      << "<th class=\"l\">tiles</th><th>candidates</th><th>time</th><th>GFLOP/s</th><th>of roof</th>"
      << "<th>vs rule</th></tr>\n";
    for (const KernelRow &r : kernels) {
      h << "<tr><td class=\"l\">" << escape(r.kind) << "</td><td class=\"l\">" << escape(r.kernel)
        << "</td><td class=\"l\">" << escape(r.key) << "</td><td class=\"l\">" << escape(r.chosen) << "</td><td>"
        << r.usable << " / " << r.tried << "</td>";
      if (r.best) {
        double t = r.best->seconds, gflops = r.flops / t * 1e-9;
        double roof = std::min(computeRoof(in.peaks, {r.dtype, r.dtype}), r.flops / r.bytes * in.peaks.readGbps);
        h << "<td>" << duration(t) << "</td><td>" << fixed(gflops, 1) << "</td><td>"
          << (roof > 0 ? fixed(100 * gflops / roof, 0) + "%" : "–") << "</td><td>"
          << (r.ruleResult ? fixed(r.ruleResult->seconds / t, 2) + "×" : "–") << "</td></tr>\n";
      } else {
        h << "<td colspan=\"4\">not measured</td></tr>\n";
      }
    }
    h << "</table>\n";
  }
  h << "<h2>Roofline</h2>\n" << roofline(in, rows);
  if (!in.byRule.empty()) {
    h << "<h2>Other kernels (not timed by the sweep)</h2>\n<ul>\n";
    for (const std::string &line : in.byRule) h << "<li>" << escape(line) << "</li>\n";
    h << "</ul>\n";
  }
  h << "</body></html>\n";
  return h.str();
}

} // namespace argus::tuning
