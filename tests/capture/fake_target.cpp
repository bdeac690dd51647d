// Stands in for a CUDA program in the launcher tests: it loads the injection library named in
// CUDA_INJECTION64_PATH and calls InitializeInjection, as the CUDA driver does during cuInit (CUPTI
// then finds no GPU and says so). "fork" makes a child process do the same; the last argument is
// the exit code.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

void inject() {
  const char* path = std::getenv("CUDA_INJECTION64_PATH");
  if (!path) return;
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    std::fprintf(stderr, "fake_target: %s\n", dlerror());
    return;
  }
  auto init = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
  if (init) init();
}

}  // namespace

int main(int argc, char** argv) {
  bool forkChild = argc > 1 && std::strcmp(argv[1], "fork") == 0;
  if (forkChild) {
    pid_t child = fork();
    if (child == 0) {
      inject();
      std::exit(0);
    }
    inject();
    waitpid(child, nullptr, 0);
  } else {
    inject();
  }
  std::printf("fake target done\n");
  return argc > 1 ? std::atoi(argv[argc - 1]) : 0;
}
