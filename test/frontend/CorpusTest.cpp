//===- CorpusTest.cpp - realistic kernels in corpus/ parse cleanly --------===//
#include "AstDump.h"
#include "argus/Frontend/Parser.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace argus::dsl;

namespace {

std::string readCorpus(const std::string &name) {
  std::ifstream in(std::string(ARGUS_FRONTEND_CORPUS_DIR) + "/" + name, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open corpus file " << name;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::unique_ptr<Module> parseCorpus(const std::string &name) {
  std::string text = readCorpus(name);
  ParseOutput out = parseModule(text, name);
  if (!out.errors.empty())
    ADD_FAILURE() << formatDiagnostic(out.errors[0], text);
  return std::move(out.module);
}

const FunctionDef *findKernel(const Module &m, const std::string &name) {
  for (const StmtPtr &s : m.body)
    if (const auto *fn = s->as<FunctionDef>(); fn && fn->name == name)
      return fn;
  return nullptr;
}

TEST(Corpus, GemmTn) {
  auto m = parseCorpus("gemm_tn.argus");
  ASSERT_TRUE(m);
  const FunctionDef *fn = findKernel(*m, "gemm_tn");
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->params.size(), 12u);
  ASSERT_EQ(fn->decorators.size(), 1u);
  EXPECT_EQ(test::dump(fn->decorators[0].get()),
            "(call kernel grid=(tuple (call cdiv M BM) (call cdiv N BN)) reference=\"gemm_tn\")");
  // The pipelined loop and the elif chain have the expected shape.
  const ForStmt *loop = nullptr;
  const IfStmt *branch = nullptr;
  for (const StmtPtr &s : fn->body) {
    if (!loop) loop = s->as<ForStmt>();
    if (!branch) branch = s->as<IfStmt>();
  }
  ASSERT_TRUE(loop);
  EXPECT_EQ(test::dump(loop->iter.get()), "(call pipeline (call cdiv K BK) stages=2)");
  EXPECT_EQ(loop->body.size(), 6u);
  ASSERT_TRUE(branch);
  ASSERT_EQ(branch->orElse.size(), 1u);
  const auto *elif = branch->orElse[0]->as<IfStmt>();
  ASSERT_TRUE(elif);
  ASSERT_EQ(elif->orElse.size(), 1u);
  EXPECT_EQ(test::dump(elif->orElse[0].get(), 0),
            "(tuple x y) = (tuple (- ([] acc (tuple 0 1))) (// (** 2 3) 4))\n");
}

TEST(Corpus, AttentionDecode) {
  auto m = parseCorpus("attention_decode.argus");
  ASSERT_TRUE(m);
  const FunctionDef *fn = findKernel(*m, "attention_decode");
  ASSERT_TRUE(fn);
  EXPECT_EQ(fn->params.size(), 11u);
  EXPECT_EQ(fn->params.back().name, "GROUP");
}

TEST(Corpus, RmsnormAndSilu) {
  auto m = parseCorpus("rmsnorm_silu.argus");
  ASSERT_TRUE(m);
  EXPECT_TRUE(findKernel(*m, "rmsnorm"));
  const FunctionDef *silu = findKernel(*m, "silu_mul");
  ASSERT_TRUE(silu);
  EXPECT_EQ(test::dump(silu->params.back().defaultValue.get()), "256");
  // "EPS = 1e-6; BLOCK_ROWS = 4" gives two module-level assignments.
  int assigns = 0;
  for (const StmtPtr &s : m->body)
    assigns += s->as<AssignStmt>() != nullptr;
  EXPECT_EQ(assigns, 2);
}

} // namespace
