#include "memsim/formats/g10_net_text.h"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace ts::memsim {

namespace {

struct Token {
  enum Kind { Punct, Ident, Number, End } kind = End;
  std::string text;
  double number = 0;
  int line = 0;
};

// Splits the module text into punctuation, identifiers (True/False become numbers 1/0) and
// numbers ("1e-05", "0.1", "-1").
Result<std::vector<Token>> tokenize(std::string_view text, const std::string& file) {
  std::vector<Token> out;
  int line = 1;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line, ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (c == '(' || c == ')' || c == ':' || c == ',' || c == '=') {
      out.push_back({Token::Punct, std::string(1, c), 0, line});
      ++i;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
        ++j;
      std::string word(text.substr(i, j - i));
      if (word == "True" || word == "False")
        out.push_back({Token::Number, word, word == "True" ? 1.0 : 0.0, line});
      else
        out.push_back({Token::Ident, std::move(word), 0, line});
      i = j;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '+' || c == '.') {
      size_t j = i + 1;
      while (j < text.size() &&
             (std::isdigit(static_cast<unsigned char>(text[j])) || text[j] == '.' ||
              text[j] == 'e' || text[j] == 'E' ||
              ((text[j] == '-' || text[j] == '+') && (text[j - 1] == 'e' || text[j - 1] == 'E'))))
        ++j;
      std::string number(text.substr(i, j - i));
      char* end = nullptr;
      const double v = std::strtod(number.c_str(), &end);
      if (end != number.c_str() + number.size() || !std::isfinite(v))
        return Error{file + ":" + std::to_string(line) + ": '" + number + "' is not a number"};
      out.push_back({Token::Number, std::move(number), v, line});
      i = j;
      continue;
    }
    return Error{file + ":" + std::to_string(line) + ": unexpected character '" +
                 std::string(1, c) + "'"};
  }
  out.push_back({Token::End, "end of file", 0, line});
  return out;
}

class Parser {
 public:
  Parser(std::vector<Token> tokens, std::string file)
      : tokens_(std::move(tokens)), file_(std::move(file)) {}

  Result<NetNode> model() {
    NetNode root;
    root.kind = NetNode::Kind::Block;
    if (peek().kind != Token::Ident) return fail("the model's class name");
    root.type = next().text;
    root.line = peek().line;
    if (!accept("(")) return fail("'(' after " + root.type);
    if (auto s = children(root); !s.empty()) return Error{s};
    if (peek().kind != Token::End) return fail("the end of the file after the model");
    if (root.children.empty()) return Error{file_ + ": the model has no layers"};
    return root;
  }

 private:
  const Token& peek() const { return tokens_[pos_]; }
  const Token& next() {
    const Token& t = tokens_[pos_];
    if (t.kind != Token::End) ++pos_;
    return t;
  }
  bool accept(const char* punct) {
    if (peek().kind == Token::Punct && peek().text == punct) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::string where() const { return file_ + ":" + std::to_string(peek().line) + ": "; }
  Error fail(const std::string& expected) const {
    return Error{where() + "expected " + expected + ", found '" + peek().text + "'"};
  }

  // "(name): Thing(...)" items up to the closing ')' of the parent; "" or an error message.
  std::string children(NetNode& parent) {
    if (++depth_ > 64) return where() + "blocks nested more than 64 deep";
    while (!accept(")")) {
      NetNode child;
      child.line = peek().line;
      if (!accept("(")) return fail("'(name): layer' or ')'").message;
      if (peek().kind != Token::Ident && peek().kind != Token::Number)
        return fail("a layer name").message;
      child.name = next().text;
      if (!accept(")")) return fail("')' after the layer name").message;
      if (!accept(":")) return fail("':' after (" + child.name + ")").message;
      if (peek().kind != Token::Ident) return fail("a layer class").message;
      child.type = next().text;
      if (!accept("(")) return fail("'(' after " + child.type).message;
      if (isNetOperator(child.type)) {
        child.kind = NetNode::Kind::Operator;
        if (auto s = arguments(child); !s.empty()) return s;
      } else if (peek().kind == Token::Punct && peek().text == "(") {
        child.kind = child.type == "Sequential" ? NetNode::Kind::Sequential : NetNode::Kind::Block;
        if (auto s = children(child); !s.empty()) return s;
        if (child.children.empty())
          return file_ + ":" + std::to_string(child.line) + ": " + child.type + " (" + child.name +
                 ") has no layers";
      } else {
        return file_ + ":" + std::to_string(child.line) + ": '" + child.type +
               "' is not an operator G10's frontend knows (Conv2d, ReLU, MaxPool2d, "
               "AdaptiveAvgPool2d, Linear, Dropout, BatchNorm2d) nor a block of layers";
      }
      parent.children.push_back(std::move(child));
    }
    --depth_;
    return {};
  }

  // "3, 64, kernel_size=(7, 7), bias=False" up to the closing ')'.
  std::string arguments(NetNode& op) {
    while (!accept(")")) {
      if (!op.positional.empty() || !op.named.empty()) {
        if (!accept(",")) return fail("',' or ')'").message;
      }
      std::string key;
      if (peek().kind == Token::Ident) {
        key = next().text;
        if (!accept("=")) return fail("'=' after " + key).message;
      }
      NetValue v;
      if (accept("(")) {
        while (!accept(")")) {
          if (!v.numbers.empty() && !accept(",")) return fail("',' or ')'").message;
          if (peek().kind != Token::Number) return fail("a number").message;
          v.numbers.push_back(next().number);
        }
      } else if (peek().kind == Token::Number) {
        v.numbers.push_back(next().number);
      } else {
        return fail("a value").message;
      }
      if (key.empty())
        op.positional.push_back(std::move(v));
      else
        op.named[key] = std::move(v);
    }
    return {};
  }

  std::vector<Token> tokens_;
  std::string file_;
  size_t pos_ = 0;
  int depth_ = 0;
};

}  // namespace

bool isNetOperator(std::string_view type) {
  static constexpr std::array<std::string_view, 7> kOperators = {
      "Conv2d", "ReLU", "MaxPool2d", "AdaptiveAvgPool2d", "Linear", "Dropout", "BatchNorm2d"};
  for (std::string_view op : kOperators)
    if (op == type) return true;
  return false;
}

Result<NetNode> parseNetText(std::string_view text, const std::string& file) {
  auto tokens = tokenize(text, file);
  if (!tokens) return tokens.failure();
  Parser p(std::move(*tokens), file);
  return p.model();
}

}  // namespace ts::memsim
