//===- FuzzTest.cpp - the parser returns on any input ---------------------===//
//
// Thousands of deterministic mutations of good programs (byte deletions,
// insertions, swaps, duplicated slices, inserted tokens) plus hand-made
// pathological inputs. The only claims: parseModule returns, reports at most
// one error, returns a module iff there is no error, and the diagnostic can
// be printed. Crashes, hangs and stack overflows are what this test catches.
//
//===----------------------------------------------------------------------===//
#include "argus/Frontend/Lexer.h"
#include "argus/Frontend/Parser.h"

#include <gtest/gtest.h>

#include <pthread.h>

#include <fstream>
#include <random>
#include <sstream>

using namespace argus::dsl;

namespace {

std::string readCorpus(const std::string &name) {
  std::ifstream in(std::string(ARGUS_FRONTEND_CORPUS_DIR) + "/" + name, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void checkReturns(const std::string &text) {
  ParseOutput out = parseModule(text, "fuzz.argus");
  ASSERT_LE(out.errors.size(), 1u);
  ASSERT_EQ(out.module == nullptr, !out.errors.empty()) << text;
  if (!out.errors.empty()) {
    const Diagnostic &d = out.errors[0];
    EXPECT_FALSE(d.message.empty());
    EXPECT_GE(d.loc.line, 1u) << d.message;
    EXPECT_GE(d.loc.col, 1u) << d.message;
    std::string printed = formatDiagnostic(d, text);
    EXPECT_EQ(printed.rfind("fuzz.argus:", 0), 0u);
  }
  // The lexer alone terminates too.
  std::optional<LexError> error;
  std::vector<Token> tokens = Lexer::tokenize(text, &error);
  ASSERT_FALSE(tokens.empty());
}

const char *const kTokens[] = {
    "(", ")", "[", "]", "{", "}", ":", ",", ";", ".", "=", "==", "**", "-", "not ", " if ",
    " else ", "lambda ", " for ", " in ", "def ", "@", "\n", "\n    ", "\n        ", "\\\n",
    "\\", "'", "\"", "\"\"\"", "#", "0x", "1e", "1_", "9223372036854775808", "\t", "\r",
    "\r\n", "\xC3\xA9", "\xFF", "elif ", "return ", "pass", "assert ", "import ", "from ",
    "*", "**kw", "a.b", "x[0]", "f(k=1)", "1.5", ".5", "True", "None", " is ", " and ",
};

std::string mutate(std::string s, std::mt19937 &rng) {
  auto pick = [&](size_t n) { return n == 0 ? size_t(0) : size_t(rng() % n); };
  int edits = 1 + int(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    switch (rng() % 6) {
    case 0: { // delete a byte range
      size_t at = pick(s.size());
      s.erase(at, 1 + pick(8));
      break;
    }
    case 1: // insert a random byte
      s.insert(s.begin() + long(pick(s.size() + 1)), char(rng() % 256));
      break;
    case 2: { // swap two bytes
      if (s.size() > 1)
        std::swap(s[pick(s.size())], s[pick(s.size())]);
      break;
    }
    case 3: { // duplicate a slice somewhere else
      size_t from = pick(s.size());
      std::string slice = s.substr(from, 1 + pick(40));
      s.insert(pick(s.size() + 1), slice);
      break;
    }
    default: { // insert a token
      const char *tok = kTokens[pick(sizeof(kTokens) / sizeof(kTokens[0]))];
      s.insert(pick(s.size() + 1), tok);
      break;
    }
    }
  }
  return s;
}

TEST(Fuzz, MutatedCorpusAlwaysReturns) {
  std::vector<std::string> seeds = {readCorpus("gemm_tn.argus"),
                                    readCorpus("attention_decode.argus"),
                                    readCorpus("rmsnorm_silu.argus")};
  for (const std::string &s : seeds)
    ASSERT_FALSE(s.empty());
  std::mt19937 rng(20260422);
  int failures = 0, successes = 0;
  for (int i = 0; i < 6000; ++i) {
    std::string text = mutate(seeds[size_t(i) % seeds.size()], rng);
    ParseOutput out = parseModule(text, "fuzz.argus");
    (out.module ? successes : failures)++;
    checkReturns(text);
    if (HasFatalFailure())
      return;
  }
  // Mutations break most programs but not all: both paths were exercised.
  EXPECT_GT(failures, 1000);
  EXPECT_GT(successes, 10);
}

TEST(Fuzz, RandomBytesAlwaysReturn) {
  std::mt19937 rng(7);
  const std::string alphabet = "()[]{}:,;.=+-*/%<>!&|^~@ \n\t\r\\'\"#abcxyz019_eE";
  for (int i = 0; i < 3000; ++i) {
    std::string text;
    size_t n = rng() % 200;
    for (size_t j = 0; j < n; ++j)
      text += (rng() % 8 == 0) ? char(rng() % 256) : alphabet[rng() % alphabet.size()];
    checkReturns(text);
    if (HasFatalFailure())
      return;
  }
}

TEST(Fuzz, PathologicalInputsReturn) {
  auto rep = [](const std::string &s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
      out += s;
    return out;
  };
  std::vector<std::string> inputs = {
      rep("(", 100000),
      rep(")", 100000),
      "x = " + rep("[", 100000),
      "x = " + rep("-", 200000) + "1",
      "x = " + rep("not ", 100000) + "a",
      "x = " + rep("lambda: ", 100000) + "0",
      "x = " + rep("a if b else ", 100000) + "c",
      "x = " + rep("a.", 100000) + "b",
      "x = a" + rep("()", 100000),
      "x = a" + rep("[0]", 100000),
      "x = " + rep("2 ** ", 100000) + "2",
      "x = " + rep("a < ", 100000) + "b",
      "x = " + rep("a or ", 100000) + "b",
      "x = " + rep("f(", 100000),
      "x = " + rep("(a, ", 100000),
      rep("if x:\n", 1) + rep(" ", 100000) + "y\n",
      [&] {
        std::string s;
        for (int i = 0; i < 400; ++i)
          s += std::string(size_t(i), ' ') + "if x:\n";
        return s;
      }(),
      "if a:\n    pass\n" + rep("elif a:\n    pass\n", 50000),
      rep("\n", 100000),
      rep("\\\n", 100000),
      rep("'", 100001),
      rep("\"\"\"", 33333),
      rep("@d\n", 100000) + "def f():\n    pass\n",
      rep("x = 1; ", 100000) + "\n",
      std::string(1, '\0'),
      "x = 'a\0b'\n",
      "\xEF\xBB\xBF",
      "\xEF\xBB",
  };
  for (const std::string &text : inputs) {
    checkReturns(text);
    if (HasFatalFailure())
      return;
  }
}

/// The deepest programs the parser accepts, and ones just past its limits,
/// parsed on a thread with a 4 MiB stack (release builds need under 0.5 MiB,
/// -O0 under 1 MiB; the margin is for sanitizer builds).
TEST(Fuzz, DeepestNestingFitsInASmallThreadStack) {
  struct Job {
    std::vector<std::pair<std::string, bool>> inputs; // text, should parse
    std::vector<std::string> problems;
  } job;
  auto rep = [](const std::string &s, int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
      out += s;
    return out;
  };
  int n = int(kMaxNestingDepth) - 1;
  job.inputs = {
      {"x = " + rep("(", n) + "1" + rep(")", n) + "\n", true},
      {"x = " + rep("[", n) + rep("]", n) + "\n", true},
      {"x = " + rep("f(", n - 1) + rep(")", n - 1) + "\n", true},
      {"x = " + rep("(a | b ^ c & d << e + f * ", 25) + "g" + rep(")", 25) + "\n", true},
      {"x = " + rep("(", 100000) + "\n", false},
      {"x = " + rep("f(", 100000) + "\n", false},
      {"x = " + rep("a[", 100000) + "\n", false},
      {"x = " + rep("(a | b ^ c & d << e + f * ", 1000) + "\n", false},
  };
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, size_t(4) << 20), 0);
  pthread_t thread;
  auto body = [](void *arg) -> void * {
    auto *state = static_cast<Job *>(arg);
    for (const auto &[text, good] : state->inputs) {
      ParseOutput out = parseModule(text, "deep.argus");
      if (good != out.errors.empty())
        state->problems.push_back(text.substr(0, 40) + "...: " +
                                  (out.errors.empty() ? "parsed" : out.errors[0].message));
      else if (!good && out.errors[0].message.find("nested too deeply") == std::string::npos)
        state->problems.push_back(text.substr(0, 40) + "...: " + out.errors[0].message);
    }
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attr, body, &job), 0);
  ASSERT_EQ(pthread_join(thread, nullptr), 0);
  pthread_attr_destroy(&attr);
  for (const std::string &p : job.problems)
    ADD_FAILURE() << p;
}

} // namespace
