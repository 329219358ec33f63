#include "report/json_splice.h"

#include <string>
#include <string_view>

namespace numasim {

namespace {

using json = nlohmann::json;

void put(std::FILE* out, std::string_view s) {
    std::fwrite(s.data(), 1, s.size(), out);
}

class Writer {
  public:
    Writer(std::FILE* out, const std::vector<JsonSplice>& splices) : out_(out) {
        for (const JsonSplice& s : splices)
            at_.emplace_back(s.at.to_string(), &s);
    }

    void value(const json& v, const json::json_pointer& at, int indent) {
        const std::string where = at.to_string();
        bool inside = false;
        for (const auto& [p, s] : at_) {
            if (p == where) return s->write(out_, indent);
            // The escaped tokens of a pointer hold no '/', so a prefix ending at one is a parent.
            inside = inside || p.starts_with(where + "/");
        }
        if (!inside || !v.is_structured() || v.empty()) return put(out_, json_text(v, indent));
        // The layout of nlohmann's serializer with an indent: one member per line.
        const bool object = v.is_object();
        const std::string pad(static_cast<size_t>(indent + kJsonIndent), ' ');
        put(out_, object ? "{\n" : "[\n");
        size_t i = 0;
        for (auto it = v.begin(); it != v.end(); ++it, ++i) {
            if (i) put(out_, ",\n");
            put(out_, pad);
            if (object) {
                put(out_, json(it.key()).dump());
                put(out_, ": ");
            }
            value(*it, object ? at / it.key() : at / i, indent + kJsonIndent);
        }
        put(out_, "\n");
        put(out_, std::string(static_cast<size_t>(indent), ' '));
        put(out_, object ? "}" : "]");
    }

  private:
    std::FILE* out_;
    std::vector<std::pair<std::string, const JsonSplice*>> at_;
};

}  // namespace

std::string json_text(const json& v, int indent) {
    // dump(2)'s own serializer, started at `indent` (the argument dump() leaves at 0): every line
    // after the first indented, without a second pass over the text.
    std::string s;
    nlohmann::detail::serializer<json> w(nlohmann::detail::output_adapter<char, std::string>(s),
                                         ' ');
    w.dump(v, true, false, kJsonIndent, static_cast<unsigned int>(indent));
    return s;
}

void write_json(std::FILE* out, const json& doc, const std::vector<JsonSplice>& splices) {
    Writer(out, splices).value(doc, json::json_pointer(), 0);
    put(out, "\n");
}

}  // namespace numasim
