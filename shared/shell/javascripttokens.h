#pragma once

#include <QList>
#include <QString>

namespace Countersign::Shell::JavaScript {

// One token of JavaScript source. A template literal with no ${...} is a Template; one with them is
// a TemplateHead, the tokens of each expression, a TemplateMiddle between two, and a TemplateTail.
struct Token final
{
    enum class Kind {
        Name,
        String,
        Template,
        Number,
        Regex,
        TemplateHead,
        TemplateMiddle,
        TemplateTail,
        Punct
    };
    Kind kind = Kind::Punct;
    QString text;         // a string's value (its escapes decoded when literal), else as written
    int line = 1;         // where it starts (lines counted from 1, as code.split('\n') numbers them)
    bool literal = true;  // a string whose value is known (no \x, \u or octal escape)
    bool newline = false; // a line break comes before it (automatic semicolons)
};

// The tokens of code, comments dropped; false with why for anything read otherwise than node may
// read it: an unclosed string, comment, template or regular expression, a character outside ASCII
// outside strings and comments, a backslash outside strings, an HTML-like comment (<!-- -->), #!
// after the start, a "/" that may start a regular expression or divide (after "}"), a lone carriage
// return, brackets that do not match or nest deeper than kMaxNesting.
bool tokenize(const QString &code, QList<Token> *tokens, QString *why);

constexpr qsizetype kMaxTokens = 60000;
constexpr int kMaxNesting = 100;

} // namespace Countersign::Shell::JavaScript
