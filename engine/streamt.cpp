#include "engine/streamt.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>

namespace streamt {

result<plan::plan> load_plan_file(const std::string& path) {
  // The loader refuses documents over plan::max_document_bytes itself, naming
  // the limit; reading up to this much more lets it say so instead of us
  // truncating silently, while a wrong path to a huge file is still bounded.
  constexpr std::size_t read_limit = 64u << 20;
  auto unreadable = [&](std::string message) {
    diagnostic d;
    d.phase = phase::plan;
    d.code = "unreadable_input";
    d.message = std::move(message);
    return d;
  };
  std::ifstream in(path, std::ios::binary);
  if (!in) return unreadable("cannot read '" + path + "': " + std::strerror(errno));
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<std::size_t>(in.gcount()));
    if (text.size() > read_limit)
      return unreadable("'" + path + "' holds more than " + std::to_string(read_limit) +
                        " bytes; check that it is a plan file");
  }
  if (in.bad()) return unreadable("reading '" + path + "' failed");
  return plan::load_plan(text);
}

}  // namespace streamt
