#include "core/model/kindlabel.h"

namespace tracedesk::core {

namespace {

// The instruction name's [begin, end) in `text`, or an empty range.
std::pair<size_t, size_t> instructionName(std::string_view text)
{
    const size_t begin = text.starts_with("ROOT ") ? 6 : 1;
    if (text.size() < begin || text[begin - 1] != '%')
        return {0, 0};
    size_t i = begin;
    while (i < text.size() && text[i] != ' ' && text[i] != '=')
        ++i;
    if (i == begin || !text.substr(i).starts_with(" = "))
        return {0, 0};
    return {begin, i};
}

} // namespace

bool isHloInstructionText(std::string_view text)
{
    const auto [begin, end] = instructionName(text);
    return end > begin;
}

std::string_view sliceLabel(std::string_view name)
{
    const auto [begin, end] = instructionName(name);
    return end > begin ? name.substr(begin, end - begin) : name;
}

} // namespace tracedesk::core
