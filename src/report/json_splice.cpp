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
    const std::string s = v.dump(kJsonIndent);
    if (indent == 0) return s;
    // Every line after the first indented; a JSON string never holds a raw line break, so each
    // one in the text starts a line.
    std::string line_break(static_cast<size_t>(indent) + 1, ' ');
    line_break.front() = '\n';
    std::string out;
    size_t from = 0;
    for (size_t nl; (nl = s.find('\n', from)) != std::string::npos; from = nl + 1)
        out.append(s, from, nl - from).append(line_break);
    return out.append(s, from);
}

void write_json(std::FILE* out, const json& doc, const std::vector<JsonSplice>& splices) {
    Writer(out, splices).value(doc, json::json_pointer(), 0);
    put(out, "\n");
}

}  // namespace numasim
