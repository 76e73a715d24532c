//===- CorpusTest.cpp - every corpus kernel proved or caught ------------===//
//
// test/verifier/corpus/*.argus carry their expectation in header comments:
//   # EXPECT: proved                      no error finding
//   # EXPECT: <check>  # AT: <line>       a finding of that check whose
//                                         counterexample points at that line
//   # AT-ALSO: <line>, ...                other lines the finding may name
//   # REPLAY: not confirmable: <why>      the interpreter cannot show this bug
// A caught bug's replay must never fail to run, and tag assertions, bounds,
// double and missing writes on f32 kernels must be confirmed by it.
//
//===----------------------------------------------------------------------===//
#include "VerifyTestUtil.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <set>

using namespace argus;

namespace {

struct CorpusCase {
  std::string path, expect;
  std::set<int> lines;
  bool replayable = true; // false with a '# REPLAY: not confirmable: why' line
};

std::vector<CorpusCase> corpus() {
  std::vector<CorpusCase> cases;
  for (auto &entry : std::filesystem::directory_iterator(ARGUS_SOURCE_DIR "/test/verifier/corpus")) {
    if (entry.path().extension() != ".argus")
      continue;
    CorpusCase c{entry.path().string(), "", {}};
    std::string text = test::readFile(c.path);
    std::smatch m;
    if (std::regex_search(text, m, std::regex("# EXPECT: ([a-z-]+)")))
      c.expect = m[1];
    c.replayable = text.find("# REPLAY: not confirmable") == std::string::npos;
    for (const char *key : {"# AT: ([0-9, ]+)", "# AT-ALSO: ([0-9, ]+)"})
      if (std::regex_search(text, m, std::regex(key))) {
        std::string list = m[1];
        static const std::regex number("[0-9]+");
        for (std::sregex_iterator it(list.begin(), list.end(), number), end; it != end; ++it)
          c.lines.insert(std::stoi(it->str()));
      }
    cases.push_back(c);
  }
  std::sort(cases.begin(), cases.end(), [](auto &a, auto &b) { return a.path < b.path; });
  return cases;
}

// gtest prints parameters by name, not as bytes.
void PrintTo(const CorpusCase &c, std::ostream *os) { *os << c.path; }

int lineOf(const std::string &location) {
  std::smatch m;
  if (std::regex_search(location, m, std::regex(":([0-9]+):[0-9]+$")))
    return std::stoi(m[1]);
  return -1;
}

class Corpus : public ::testing::TestWithParam<CorpusCase> {};

TEST_P(Corpus, ProvedOrCaught) {
  const CorpusCase &c = GetParam();
  ASSERT_FALSE(c.expect.empty()) << c.path << " has no '# EXPECT:' line";
  test::Verified v = test::verifySource(test::readFile(c.path), c.path);
  ASSERT_TRUE(v.error.empty()) << v.error;
  ASSERT_FALSE(v.result.kernels.empty());
  std::string report = verify::formatResult(v.result);
  if (c.expect == "proved") {
    EXPECT_TRUE(v.result.proved()) << report;
    return;
  }
  std::optional<verify::CheckKind> kind = verify::checkFromName(c.expect);
  ASSERT_TRUE(kind) << "unknown check '" << c.expect << "' in " << c.path;
  ASSERT_FALSE(c.lines.empty()) << c.path << " has no '# AT:' line";
  const verify::Finding *caught = nullptr;
  for (const verify::Finding &f : v.result.kernels.front().findings)
    for (const verify::Access &a : f.accesses)
      if (f.kind == *kind && c.lines.count(lineOf(a.point.location)))
        caught = &f;
  ASSERT_NE(caught, nullptr) << "expected a " << c.expect << " finding at line(s) "
                             << *c.lines.begin() << "; got:\n" << report;
  EXPECT_NE(caught->replay.status, verify::Replay::Status::Failed) << report;
  EXPECT_NE(caught->replay.status, verify::Replay::Status::NotRun) << report;
  // The counterexample names a concrete element or slot for every access-based check.
  if (*kind != verify::CheckKind::UnwrittenOutput)
    EXPECT_FALSE(caught->accesses.front().block.empty()) << report;
  // Confirmable kinds on f32 kernels must be confirmed by the interpreter.
  bool confirmable = *kind == verify::CheckKind::TagAssertion || *kind == verify::CheckKind::DoubleWrite ||
                     *kind == verify::CheckKind::UnwrittenOutput;
  if (confirmable && c.replayable && caught->replay.detail.find("f32 tensors only") == std::string::npos)
    EXPECT_EQ(caught->replay.status, verify::Replay::Status::Confirmed) << report;
}

INSTANTIATE_TEST_SUITE_P(Verifier, Corpus, ::testing::ValuesIn(corpus()),
                         [](const ::testing::TestParamInfo<CorpusCase> &info) {
                           std::string name = std::filesystem::path(info.param.path).stem().string();
                           for (char &ch : name)
                             if (!isalnum(static_cast<unsigned char>(ch)))
                               ch = '_';
                           return name;
                         });

TEST(CorpusSize, AtLeastTwentyFiveBugKinds) {
  int bugs = 0;
  for (const CorpusCase &c : corpus())
    bugs += c.expect != "proved";
  EXPECT_GE(bugs, 25);
}

} // namespace
