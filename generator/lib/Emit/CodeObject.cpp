//===- CodeObject.cpp - resources and instruction counts of an AMDGPU code object -===//
#include "argus/Emit/CodeObject.h"

#include "argus/Emit/Compiler.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

namespace argus::emit {
namespace {

int64_t integer(llvm::msgpack::MapDocNode &map, llvm::StringRef key) {
  auto it = map.find(key);
  if (it == map.end())
    return 0;
  llvm::msgpack::DocNode &v = it->second;
  if (v.getKind() == llvm::msgpack::Type::UInt)
    return int64_t(v.getUInt());
  if (v.getKind() == llvm::msgpack::Type::Int)
    return v.getInt();
  return 0;
}

std::string string(llvm::msgpack::MapDocNode &map, llvm::StringRef key) {
  auto it = map.find(key);
  return it != map.end() && it->second.getKind() == llvm::msgpack::Type::String ? it->second.getString().str() : "";
}

// The AMDGPU metadata note's kernels; "" or what is wrong.
std::string readMetadata(const llvm::object::ELF64LEFile &elf, CodeObjectInfo &info) {
  auto headers = elf.program_headers();
  if (!headers)
    return llvm::toString(headers.takeError());
  for (const auto &header : *headers) {
    if (header.p_type != llvm::ELF::PT_NOTE)
      continue;
    llvm::Error error = llvm::Error::success();
    for (const auto &note : elf.notes(header, error)) {
      if (note.getName() != "AMDGPU" || note.getType() != llvm::ELF::NT_AMDGPU_METADATA)
        continue;
      llvm::msgpack::Document doc;
      if (!doc.readFromBlob(note.getDescAsStringRef(4), false))
        return "its AMDGPU metadata note is not MessagePack";
      llvm::msgpack::MapDocNode &root = doc.getRoot().getMap();
      info.target = string(root, "amdhsa.target");
      info.arch = info.target.substr(std::min(info.target.size(), info.target.find("--") + 2));
      info.arch = info.arch.substr(0, info.arch.find(':'));
      auto kernels = root.find("amdhsa.kernels");
      if (kernels == root.end() || kernels->second.getKind() != llvm::msgpack::Type::Array)
        return "its AMDGPU metadata lists no kernels";
      for (llvm::msgpack::DocNode &node : kernels->second.getArray()) {
        llvm::msgpack::MapDocNode &k = node.getMap();
        KernelResources r;
        r.name = string(k, ".name");
        r.vgprs = integer(k, ".vgpr_count");
        r.agprs = integer(k, ".agpr_count");
        r.sgprs = integer(k, ".sgpr_count");
        r.vgprSpills = integer(k, ".vgpr_spill_count");
        r.sgprSpills = integer(k, ".sgpr_spill_count");
        r.ldsBytes = integer(k, ".group_segment_fixed_size");
        r.scratchBytes = integer(k, ".private_segment_fixed_size");
        r.workgroupSize = integer(k, ".max_flat_workgroup_size");
        r.wavefrontSize = integer(k, ".wavefront_size");
        info.kernels.push_back(r);
      }
      return "";
    }
    if (error)
      return llvm::toString(std::move(error));
  }
  return "it has no AMDGPU metadata note (not a code object for amdhsa)";
}

// Per function of the disassembly: its instructions, its MFMAs and their
// opcodes, and its lane moves.
std::string readListing(const std::string &path, const std::string &objdump, CodeObjectInfo &info) {
  std::string listing;
  if (runCommand({objdump, "-d", "--no-show-raw-insn", path}, listing) != 0)
    return "'" + objdump + " -d " + path + "' failed:\n" + listing;
  struct Counts {
    int64_t instructions = 0, mfma = 0, laneMoves = 0;
    std::set<std::string> mfmaOpcodes;
  };
  std::map<std::string, Counts> counts;
  std::string function;
  std::istringstream lines(listing);
  for (std::string line; std::getline(lines, line);) {
    const size_t open = line.find(" <"), close = line.rfind(">:");
    if (open != std::string::npos && close != std::string::npos && close > open) {
      function = line.substr(open + 2, close - open - 2);
      continue;
    }
    const size_t at = line.find_first_not_of(" \t");
    if (function.empty() || line.empty() || line[0] != '\t' || at == std::string::npos)
      continue;
    const std::string opcode = line.substr(at, line.find_first_of(" \t", at) - at);
    Counts &c = counts[function];
    ++c.instructions;
    if (opcode.rfind("v_mfma_", 0) == 0) {
      ++c.mfma;
      c.mfmaOpcodes.insert(opcode);
    } else if (opcode == "v_writelane_b32" || opcode == "v_readlane_b32") {
      ++c.laneMoves;
    }
  }
  for (KernelResources &k : info.kernels) {
    const Counts &c = counts[k.name];
    k.instructions = c.instructions;
    k.mfmaInstructions = c.mfma;
    k.mfmaOpcodes.assign(c.mfmaOpcodes.begin(), c.mfmaOpcodes.end());
    k.laneMoves = c.laneMoves;
  }
  return "";
}

} // namespace

int64_t KernelResources::wavesPerSimd() const {
  const int64_t waves = (workgroupSize + std::max<int64_t>(wavefrontSize, 1) - 1) / std::max<int64_t>(wavefrontSize, 1);
  return (waves + 3) / 4;
}

nlohmann::json KernelResources::toJson() const {
  return {{"name", name},
          {"vgprs", vgprs},
          {"agprs", agprs},
          {"sgprs", sgprs},
          {"vgpr_spills", vgprSpills},
          {"sgpr_spills", sgprSpills},
          {"lds_bytes", ldsBytes},
          {"scratch_bytes", scratchBytes},
          {"workgroup_size", workgroupSize},
          {"waves_per_simd", wavesPerSimd()},
          {"mfma_instructions", mfmaInstructions},
          {"mfma_opcodes", mfmaOpcodes},
          {"instructions", instructions},
          {"lane_moves", laneMoves}};
}

std::string resourceProblems(const KernelResources &k) {
  std::ostringstream problems;
  if (k.scratchBytes != 0)
    problems << " " << k.scratchBytes << " bytes of scratch per work-item;";
  if (k.vgprSpills != 0)
    problems << " " << k.vgprSpills << " VGPR and " << k.sgprSpills << " SGPR spills;";
  else if (k.sgprSpills != 0 && k.laneMoves * kMaxLaneMoveShare > k.instructions)
    problems << " " << k.sgprSpills << " SGPR spills (" << k.laneMoves << " lane moves in " << k.instructions
             << " instructions);";
  // On gfx90a and gfx942 LLVM's .vgpr_count is the wave's whole unified allocation,
  // architectural VGPRs and the AGPRs after them (.agpr_count of it).
  if (k.vgprs > 512 || k.agprs > 256 || k.vgprs * k.wavesPerSimd() > 512)
    problems << " " << k.vgprs << " registers (" << k.agprs << " of them AGPRs) do not fit " << k.wavesPerSimd()
             << " waves per SIMD in 512;";
  if (k.ldsBytes > 65536)
    problems << " " << k.ldsBytes << " bytes of LDS (64 KiB per workgroup);";
  std::string text = problems.str();
  if (!text.empty())
    text = k.name + ":" + text.substr(0, text.size() - 1);
  return text;
}

std::variant<CodeObjectInfo, std::string> inspectCodeObject(const std::string &path, const std::string &objdump) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return "cannot read code object '" + path + "': " + buffer.getError().message();
  auto elf = llvm::object::ELF64LEFile::create((*buffer)->getBuffer());
  if (!elf)
    return "'" + path + "' is not a 64-bit ELF file: " + llvm::toString(elf.takeError());
  if (elf->getHeader().e_machine != llvm::ELF::EM_AMDGPU)
    return "'" + path + "' is not an AMDGPU code object";
  CodeObjectInfo info;
  if (std::string error = readMetadata(*elf, info); !error.empty())
    return "code object '" + path + "': " + error;
  if (std::string error = readListing(path, objdump, info); !error.empty())
    return error;
  return info;
}

std::string llvmTool(const std::string &name) {
  if (name == "clang++")
    if (const char *clang = std::getenv("ARGUS_HIP_CLANG"); clang && *clang)
      return clang;
  std::error_code ec;
  const std::string installed = "/usr/lib/llvm-22/bin/" + name;
  if (std::filesystem::exists(installed, ec))
    return installed;
  return name + "-22";
}

} // namespace argus::emit
