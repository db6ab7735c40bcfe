#pragma once

#include "commandcatalog.h"

namespace Countersign::Shell {

// git, read as what each subcommand does to the work tree, the history and the network: its global
// options (-C, -c, --git-dir, --work-tree) taken in, long options matched as git matches them
// (abbreviations included), and every form it does not know read as unknown. Forms that keep
// history (add, commit, checkout -b, switch, stash push, tag, merge) are writes of the work tree;
// forms that discard uncommitted work or drop commits (reset --hard, checkout -- PATH, restore,
// clean -f, branch -D, stash drop/clear, rebase) are deletions or history; push, fetch, pull and
// clone reach the network.
namespace GitCommand {

void read(CommandCatalog &catalog, const QList<Arg> &args);

// git config (args: what follows "config"; cwd: where git runs): the reading forms are reads, a
// listing that takes in ~/.gitconfig or a key holding a credential is a secret read, the rest
// writes the repository's settings (gitconfigcommand.cpp).
void config(CommandCatalog &catalog, const QList<Arg> &args, const QString &cwd);

} // namespace GitCommand

} // namespace Countersign::Shell
