#pragma once

#include <QList>
#include <QString>

namespace Countersign::Shell::Python {

// One token of Python source: a name, a string (its value when it is a plain literal), a number,
// or an operator. Statements end at an operator "\n" (a line break outside brackets) or ";".
struct Token final
{
    enum class Kind { Name, String, Number, Op };
    Kind kind = Kind::Op;
    QString text;
    int line = 1;
    bool literal = true; // a string whose value is known (not an f-string)
};

// The tokens of code, comments dropped and an f-string's {expressions} tokenized after it;
// false with why when a string is not closed or brackets do not match.
// Code in a form Python may read otherwise (a carriage return alone, a character outside ASCII
// outside strings, a coding declaration other than UTF-8, an f-string holding its own quotes) is
// refused too.
bool tokenize(const QString &code, QList<Token> *tokens, QString *why);

constexpr qsizetype kMaxTokens = 30000;

} // namespace Countersign::Shell::Python
