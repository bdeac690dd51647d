#include "io/text_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace ts {

bool isGzipFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {};
  in.read(reinterpret_cast<char*>(magic), 2);
  return in && magic[0] == 0x1f && magic[1] == 0x8b;
}

TextFile& TextFile::operator=(TextFile&& other) noexcept {
  if (this != &other) {
    if (map_) ::munmap(map_, size_);
    buffer_ = std::move(other.buffer_);
    capacity_ = other.capacity_;
    map_ = other.map_;
    size_ = other.size_;
    released_ = other.released_;
    gzipped_ = other.gzipped_;
    other.map_ = nullptr;
    other.released_ = 0;
    other.size_ = other.capacity_ = 0;
  }
  return *this;
}

TextFile::~TextFile() {
  if (map_) ::munmap(map_, size_);
}

void TextFile::reserve(size_t bytes) {
  if (bytes <= capacity_) return;
  std::unique_ptr<char[]> grown(new char[bytes]);  // default-initialised: no zero fill
  if (size_) std::memcpy(grown.get(), buffer_.get(), size_);
  buffer_ = std::move(grown);
  capacity_ = bytes;
}

namespace {

// Plain files up to this size are read into memory when mapped (faster than page by page).
constexpr uint64_t kPopulateBytes = uint64_t{1} << 30;

}  // namespace

uint64_t gzipSizeHint(const std::string& path, uint64_t onDisk) {
  // Not believed past what deflate can reach: a damaged or crafted trailer must not make a 1 KiB
  // file reserve gigabytes; a buffer grows as the text arrives anyway.
  std::ifstream in(path, std::ios::binary);
  in.seekg(-4, std::ios::end);
  unsigned char t[4] = {};
  in.read(reinterpret_cast<char*>(t), 4);
  if (!in) return onDisk * 8;
  uint64_t isize = t[0] | (t[1] << 8) | (t[2] << 16) | (uint64_t{t[3]} << 24);
  return std::max<uint64_t>(std::min<uint64_t>(isize, onDisk * 1032), onDisk);
}

Result<std::unique_ptr<GzipReader>> GzipReader::open(const std::string& path) {
  gzFile gz = gzopen(path.c_str(), "rb");
  if (!gz) return Error::io(path + ": cannot open");
  gzbuffer(gz, 1 << 20);
  return std::unique_ptr<GzipReader>(new GzipReader(path, gz));
}

GzipReader::~GzipReader() {
  gzclose(static_cast<gzFile>(gz_));
}

uint64_t GzipReader::compressedOffset() const {
  const long at = gzoffset(static_cast<gzFile>(gz_));
  return at < 0 ? 0 : static_cast<uint64_t>(at);
}

Result<size_t> GzipReader::read(char* to, size_t room) {
  gzFile gz = static_cast<gzFile>(gz_);
  room = std::min<size_t>(room, size_t{1} << 30);  // gzread counts in unsigned int
  int got = gzread(gz, to, static_cast<unsigned>(room));
  if (got < 0) {
    int code = 0;
    std::string message = gzerror(gz, &code);
    return Error{path_ + ": corrupt gzip data near compressed byte " +
                 std::to_string(compressedOffset()) + ": " + message};
  }
  if (got == 0 && room > 0) {
    // zlib reports a gzip stream that ends early only through gzerror after the last read.
    int code = 0;
    const char* message = gzerror(gz, &code);
    if (code != Z_OK && code != Z_STREAM_END)
      return Error{path_ + ": corrupt or truncated gzip data: " + std::string(message)};
  }
  return static_cast<size_t>(got);
}

void TextFile::release(size_t offset) {
  constexpr size_t kStep = size_t{64} << 20;
  if (!map_ || offset < released_ + kStep) return;
  const size_t to = std::min(offset, size_) / kStep * kStep;
  ::madvise(static_cast<char*>(map_) + released_, to - released_, MADV_DONTNEED);
  released_ = to;
}

Result<TextFile> readTextFile(const std::string& path, const Progress& progress) {
  std::error_code ec;
  auto onDisk = std::filesystem::file_size(path, ec);
  if (ec) {
    Error e{path + ": cannot read: " + ec.message(), ErrorCode::Io};
    if (ec == std::errc::no_such_file_or_directory) e.code = ErrorCode::NotFound;
    return e;
  }
  TextFile file;
  file.gzipped_ = isGzipFile(path);
  if (!file.gzipped_) {
    if (onDisk == 0) return file;
    int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) return Error::io(path + ": cannot open: " + std::strerror(errno));
    // Read ahead at once when small; a huge trace is paged in as it is read, and given back
    // behind the reader (release()), so that it is never resident whole.
    const int populate = onDisk <= kPopulateBytes ? MAP_POPULATE : 0;
    void* map = ::mmap(nullptr, onDisk, PROT_READ, MAP_PRIVATE | populate, fd, 0);
    ::close(fd);
    if (map == MAP_FAILED) return Error::io(path + ": cannot map: " + std::strerror(errno));
    ::madvise(map, onDisk, MADV_SEQUENTIAL);
    file.map_ = map;
    file.size_ = onDisk;
    progress.update(1.0);
    return file;
  }
  auto gz = GzipReader::open(path);
  if (!gz) return gz.failure();
  file.reserve(gzipSizeHint(path, onDisk));
  constexpr size_t kChunk = 1 << 20;
  for (;;) {
    if (progress.cancelled()) return Error::cancelled(path + ": cancelled");
    if (file.capacity_ - file.size_ < kChunk) {
      // Grow by half: the hint was short (a gzip over 4 GiB, or a file still being written).
      file.reserve(std::max(file.size_ + kChunk, file.size_ + file.size_ / 2));
    }
    auto got = (*gz)->read(file.buffer_.get() + file.size_, kChunk);
    if (!got) return got.failure();
    file.size_ += *got;
    if (onDisk > 0) {
      progress.update(std::min(
          1.0, static_cast<double>((*gz)->compressedOffset()) / static_cast<double>(onDisk)));
    }
    if (*got == 0) break;
  }
  return file;
}

}  // namespace ts
