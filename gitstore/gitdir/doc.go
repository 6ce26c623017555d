// Package gitdir is the low-level layer the record store writes through: it
// finds a repository the way git does, writes loose objects, moves refs and
// reads configuration, with the same on-disk protocol as git itself so that
// git and git-records can work on one repository at the same time.
//
// Crash safety. A mutation is durable in this order:
//
//  1. ObjectWriter.Write: each object goes to a temporary file, is fsynced and
//     renamed to its final name (a reader never sees a partial object);
//  2. ObjectWriter.Sync: the object directories are fsynced, so the renames
//     survive a power loss;
//  3. UpdateRef: the ref moves by compare-and-swap under git's exclusive
//     "<ref>.lock" protocol; the new value is fsynced before the lock is renamed
//     over the ref, and the ref's directory is fsynced afterwards.
//
// A kill -9 at any point leaves the ref at its old or its new value, never
// empty or half-written, plus at worst unreachable objects, "tmp_obj_*" files
// (which git fsck tolerates and git gc removes) or a stale "<ref>.lock" (which
// blocks further updates, exactly as it blocks git, until a person removes it).
//
// This is more than git does by default: git fsyncs packs but, unless
// core.fsync says otherwise, neither loose objects nor refs.
//
// Not supported, and refused where it matters: SHA-256 repositories and the
// reftable ref backend (go-git v5 reads neither). Of the conditional
// includes of the configuration, hasconfig: is not followed; see Config.
package gitdir
