// Replays fuzz inputs through a harness without libFuzzer: every regular file under each argument
// (a file or a directory, walked recursively in sorted order) is passed to LLVMFuzzerTestOneInput
// once. A crash, a sanitizer report or a broken property (FUZZ_CHECK aborts) fails the test.
// Exits 1 when no input was found, so a missing folder cannot pass silently.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path p(argv[i]);
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file()) inputs.push_back(e.path());
    } else if (fs::is_regular_file(p)) {
      inputs.push_back(p);
    } else {
      std::fprintf(stderr, "replay: %s: no such file or directory\n", argv[i]);
      return 1;
    }
  }
  std::sort(inputs.begin(), inputs.end());
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no inputs\n");
    return 1;
  }
  for (const auto& p : inputs) {
    std::ifstream in(p, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", p.c_str(), data.size());
    // A copy of exactly the input's size, so that ASan sees a read past its end.
    std::vector<uint8_t> buf(data.begin(), data.end());
    LLVMFuzzerTestOneInput(buf.data(), buf.size());
  }
  std::printf("replay: %zu inputs, no crash\n", inputs.size());
  return 0;
}
