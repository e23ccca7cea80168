// A small strict JSON parser for checking the scheduler's trace files.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ck::test::json {

struct Value;
using Object = std::map<std::string, Value>;
using Array = std::vector<Value>;

struct Value {
   std::variant<std::nullptr_t, bool, double, std::string, std::shared_ptr<Array>,
                std::shared_ptr<Object>>
      data;

   const Object *object() const
   {
      const auto *object = std::get_if<std::shared_ptr<Object>>(&data);
      return object ? object->get() : nullptr;
   }
   const Array *array() const
   {
      const auto *array = std::get_if<std::shared_ptr<Array>>(&data);
      return array ? array->get() : nullptr;
   }
   const double *number() const { return std::get_if<double>(&data); }
   const std::string *string() const { return std::get_if<std::string>(&data); }
   // The member `key` of an object, or nullptr.
   const Value *get(const std::string &key) const
   {
      const Object *members = object();
      if (!members)
         return nullptr;
      const auto member = members->find(key);
      return member == members->end() ? nullptr : &member->second;
   }
};

class Parser {
public:
   explicit Parser(std::string_view text) : text_(text) {}

   // The whole text as one value, or nullopt if it is not valid JSON.
   std::optional<Value> parse()
   {
      std::optional<Value> value = parse_value();
      skip_space();
      if (!value || position_ != text_.size())
         return std::nullopt;
      return value;
   }

private:
   void skip_space()
   {
      while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_])))
         ++position_;
   }

   bool consume(char expected)
   {
      skip_space();
      if (position_ < text_.size() && text_[position_] == expected) {
         ++position_;
         return true;
      }
      return false;
   }

   bool consume_word(std::string_view word)
   {
      if (text_.substr(position_, word.size()) != word)
         return false;
      position_ += word.size();
      return true;
   }

   std::optional<Value> parse_value()
   {
      skip_space();
      if (position_ >= text_.size())
         return std::nullopt;
      const char next = text_[position_];
      if (next == '{')
         return parse_object();
      if (next == '[')
         return parse_array();
      if (next == '"') {
         auto string = parse_string();
         return string ? std::optional<Value>(Value{*string}) : std::nullopt;
      }
      if (consume_word("true"))
         return Value{true};
      if (consume_word("false"))
         return Value{false};
      if (consume_word("null"))
         return Value{nullptr};
      return parse_number();
   }

   std::optional<Value> parse_number()
   {
      const std::string rest(text_.substr(position_, 64));
      char *end = nullptr;
      const double number = std::strtod(rest.c_str(), &end);
      if (end == rest.c_str() || !(std::isdigit(static_cast<unsigned char>(rest[0])) || rest[0] == '-'))
         return std::nullopt;
      position_ += std::size_t(end - rest.c_str());
      return Value{number};
   }

   std::optional<std::string> parse_string()
   {
      if (!consume('"'))
         return std::nullopt;
      std::string string;
      while (position_ < text_.size()) {
         const char next = text_[position_++];
         if (next == '"')
            return string;
         if (static_cast<unsigned char>(next) < 0x20)
            return std::nullopt;
         if (next == '\\') {
            if (position_ >= text_.size())
               return std::nullopt;
            const char escaped = text_[position_++];
            const std::string_view simple = "\"\\/bfnrt";
            if (simple.find(escaped) == std::string_view::npos)
               return std::nullopt; // \u escapes are not produced by the trace
            string += escaped;
            continue;
         }
         string += next;
      }
      return std::nullopt;
   }

   std::optional<Value> parse_array()
   {
      consume('[');
      auto array = std::make_shared<Array>();
      if (consume(']'))
         return Value{array};
      do {
         auto element = parse_value();
         if (!element)
            return std::nullopt;
         array->push_back(std::move(*element));
      } while (consume(','));
      return consume(']') ? std::optional<Value>(Value{array}) : std::nullopt;
   }

   std::optional<Value> parse_object()
   {
      consume('{');
      auto object = std::make_shared<Object>();
      if (consume('}'))
         return Value{object};
      do {
         skip_space();
         auto key = parse_string();
         if (!key || !consume(':'))
            return std::nullopt;
         auto member = parse_value();
         if (!member)
            return std::nullopt;
         (*object)[*key] = std::move(*member);
      } while (consume(','));
      return consume('}') ? std::optional<Value>(Value{object}) : std::nullopt;
   }

   std::string_view text_;
   std::size_t position_ = 0;
};

} // namespace ck::test::json
