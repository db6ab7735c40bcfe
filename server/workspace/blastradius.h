#pragma once

#include "commandeffects.h"

#include <nlohmann/json.hpp>

#include <QString>
#include <QStringList>

namespace Countersign {

// What a destructive command would lose, measured from the real state when the call arrives: the
// files and folders an rm (or find -delete) would delete, with how many git can bring back and how
// many it cannot; the uncommitted changes a git reset --hard, checkout -- PATHS or restore would
// discard, per file with its lines; the untracked files a git clean would delete; what a write the
// card asks about replaces in the file it writes. One plain
// sentence for the card, the detail for the plan (its digest binds it), and the diff of discarded
// work. Bounded: a walk stops at kMaxFiles and says "at least"; what cannot be measured says so.
struct BlastRadius final
{
    QStringList sentences;
    QString diff;
    nlohmann::json detail = nlohmann::json::array();
    bool lost = false; // something git cannot bring back
    // Of what is lost, something that is not a file's content (a stash, a branch's commits, a
    // remote's commits): no copy of files brings it back.
    bool lostBeyondFiles = false;
    bool unmeasured = false;
    // Every file whose content it would delete or discard: what an rm, find -delete or git clean
    // deletes, what a git reset --hard, checkout or restore overwrites (absolute, links not
    // followed). What an approved call keeps for its undo. deletesAll is false when some are not
    // listed (a pattern, a walk cut short, more untracked files than were checked, a failed measure).
    QStringList deletes;
    bool deletesAll = true;

    // writesAsked: the written files the card asks about (outside the roots, or protected), whose
    // current content and what the write would lose are measured too.
    static BlastRadius of(const QList<Shell::Effect> &effects, const QString &home,
                          const QStringList &writesAsked = {});

    static constexpr int kMaxFiles = 2000;
    static constexpr int kListed = 10;
};

} // namespace Countersign
