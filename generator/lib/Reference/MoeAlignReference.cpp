//===- MoeAlignReference.cpp - float64 MoE routing alignment --------------===//
#include "MoeAlignReference.h"

#include <algorithm>

namespace argus::ref {
namespace {

/// Rows of a routing block: the expert GEMMs' tile height, fixed by the runtime.
constexpr int64_t kBlockRows = 32;

bool namesExpert(double choice, int64_t experts) { return choice >= 0 && choice < double(experts); }

/// Each expert's first row (padded to whole blocks, end to end), then the routing's end.
std::vector<int64_t> firstRows(const std::vector<double> &choices, int64_t experts) {
  std::vector<int64_t> count(size_t(experts), 0), first(1, 0);
  for (double c : choices)
    if (namesExpert(c, experts)) ++count[size_t(c)];
  for (int64_t n : count)
    first.push_back(first.back() + (n + kBlockRows - 1) / kBlockRows * kBlockRows);
  return first;
}

int64_t expertsOf(const RefArg &firstRow) { return firstRow.shape[0] - 1; }

void put(RefArg &to, const std::vector<int64_t> &values) {
  for (size_t i = 0; i < values.size() && i < to.data.size(); ++i)
    to.data[i] = double(values[i]);
}

/// Skewed choices: expert 0 half the time (several blocks), the last of
/// three or more experts never, and -1 and E (no expert) once each.
void arrangeChoices(RefArg &choices, int64_t experts, std::mt19937_64 &rng) {
  const int64_t named = experts >= 3 ? experts - 1 : experts;
  std::uniform_int_distribution<int64_t> any(0, named - 1);
  std::bernoulli_distribution first(0.5);
  for (double &c : choices.data)
    c = double(first(rng) ? 0 : any(rng));
  if (choices.data.size() >= 4) {
    choices.data[1] = -1;
    choices.data[2] = double(experts);
  }
}

/// Arranges the choices and writes the offsets step's outputs from them.
void arrangeAligned(std::vector<RefArg> &args, std::mt19937_64 &rng) {
  arrangeChoices(args[0], expertsOf(args[1]), rng);
  const std::vector<int64_t> first = firstRows(args[0].data, expertsOf(args[1]));
  put(args[1], first);
  if (args.size() > 2 && args[2].shape == std::vector<int64_t>{2})
    put(args[2], {0, first.back() / kBlockRows});
}

} // namespace

std::string validateMoeAlignOffsets(const std::vector<RefArg> &args) {
  const RefArg &choices = args[0], &firstRow = args[1], &live = args[2];
  if (choices.shape.size() != 1 || firstRow.shape.size() != 1 || firstRow.shape[0] < 2 ||
      live.shape != std::vector<int64_t>{2})
    return "moe_align_offsets expects choices of [NC], first_row of [E + 1] (E >= 1) and live_blocks of [2]";
  return "";
}

void moeAlignOffsets(std::vector<RefArg> &args) {
  const std::vector<int64_t> first = firstRows(args[0].data, expertsOf(args[1]));
  put(args[1], first);
  put(args[2], {0, first.back() / kBlockRows});
}

void arrangeMoeAlignOffsets(std::vector<RefArg> &args, std::mt19937_64 &rng) {
  arrangeChoices(args[0], expertsOf(args[1]), rng);
}

std::string validateMoeAlignRows(const std::vector<RefArg> &args) {
  const RefArg &choices = args[0], &firstRow = args[1], &live = args[2], &blockExpert = args[3], &rows = args[4];
  if (choices.shape.size() != 1 || firstRow.shape.size() != 1 || firstRow.shape[0] < 2 ||
      live.shape != std::vector<int64_t>{2} || blockExpert.shape.size() != 1 || rows.shape.size() != 2 ||
      rows.shape[0] != blockExpert.shape[0] || rows.shape[1] != kBlockRows)
    return "moe_align_rows expects choices of [NC], first_row of [E + 1] (E >= 1), live_blocks of [2], "
           "block_expert of [MB] and block_rows of [MB, 32]";
  return "";
}

void moeAlignRows(std::vector<RefArg> &args) {
  const std::vector<double> &choices = args[0].data, &firstRow = args[1].data;
  const int64_t blocks = int64_t(args[2].data[1]);
  for (int64_t b = 0; b < args[3].shape[0]; ++b) {
    const int64_t row = b * kBlockRows;
    // Experts whose rows end at or before the block's; the last row start at or before it.
    int64_t owner = 0, start = 0;
    for (size_t e = 0; e < firstRow.size(); ++e)
      if (int64_t(firstRow[e]) <= row) {
        owner += e >= 1;
        start = std::max(start, int64_t(firstRow[e]));
      }
    const int64_t expert = b < blocks ? owner : -1;
    args[3].data[size_t(b)] = double(expert);
    std::vector<int64_t> block(size_t(kBlockRows), -1);
    int64_t rank = 0;
    for (size_t i = 0; i < choices.size() && expert >= 0; ++i) {
      if (int64_t(choices[i]) != expert) continue;
      const int64_t r = start + rank++ - row;
      if (r >= 0 && r < kBlockRows) block[size_t(r)] = int64_t(i);
    }
    for (int64_t r = 0; r < kBlockRows; ++r)
      args[4].data[size_t(row + r)] = double(block[size_t(r)]);
  }
}

void arrangeMoeAlignRows(std::vector<RefArg> &args, std::mt19937_64 &rng) { arrangeAligned(args, rng); }

std::string validateMoeAlignChoiceRow(const std::vector<RefArg> &args) {
  const RefArg &choices = args[0], &firstRow = args[1], &choiceRow = args[2];
  if (choices.shape.size() != 1 || firstRow.shape.size() != 1 || firstRow.shape[0] < 2 ||
      choiceRow.shape != choices.shape)
    return "moe_align_choice_row expects choices and choice_row of [NC] and first_row of [E + 1] (E >= 1)";
  return "";
}

void moeAlignChoiceRow(std::vector<RefArg> &args) {
  const std::vector<double> &choices = args[0].data, &firstRow = args[1].data;
  const int64_t experts = expertsOf(args[1]);
  std::vector<int64_t> seen(size_t(experts), 0);
  for (size_t i = 0; i < choices.size(); ++i) {
    const double c = choices[i];
    args[2].data[i] = namesExpert(c, experts) ? firstRow[size_t(c)] + double(seen[size_t(c)]++) : -1.0;
  }
}

void arrangeMoeAlignChoiceRow(std::vector<RefArg> &args, std::mt19937_64 &rng) { arrangeAligned(args, rng); }

} // namespace argus::ref
