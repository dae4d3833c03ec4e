// Package audit keeps agentbox's tamper-evident audit log: a JSON Lines file
// of events chained by hashes, with checkpoints signed by a key that lives in
// agentbox's state directory, outside every sandbox.
//
// # Format
//
// One event a line, UTF-8, each line ending in a newline:
//
//	{"id":1,"hash":"…","prev_hash":"genesis","timestamp":"2026-01-02T03:04:05.123456789Z",
//	 "agent_id":"…","agent_name":"…","event_type":"agent_start","allowed":true,
//	 "resource":"…","rule":"…","reason":"…","details":{"runtime":"native"}}
//
// id counts from 1 and equals the entry's position in the file. prev_hash is
// the hash of the previous entry, or "genesis" for the first. The chain
// continues across runs and across processes appending to the same file: a
// writer holds an exclusive flock(2) on the file while it appends a batch and
// re-reads the file's last entry whenever the file changed under it.
//
// # Canonical encoding and the entry hash
//
// hash is the lowercase hex SHA-256 of
//
//	"agentbox-audit-v1\x00" || enc(the entry's JSON object without its "hash" member)
//
// where enc is a tagged, length-prefixed encoding of the parsed JSON value
// (uvarint is encoding/binary's unsigned varint):
//
//	null    'n'
//	false   'f'
//	true    't'
//	number  'd' uvarint(len) literal     the number exactly as written in the line
//	string  's' uvarint(len) bytes       the decoded string, UTF-8
//	array   'a' uvarint(n) enc(v1) … enc(vn)
//	object  'o' uvarint(n) then, for each member in bytewise order of the keys:
//	        uvarint(len(key)) key enc(value)
//
// So the hash covers every member of the entry except "hash" itself, including
// members this version does not know, independently of member order and JSON
// whitespace or escaping, and no two different entries encode alike. Numbers
// are hashed as written: re-formatting 1 as 1.0 counts as a change. Lines
// with duplicate keys, invalid UTF-8 or anything but one JSON object are not
// valid entries.
//
// # Checkpoints
//
// A checkpoint is a golang.org/x/mod/sumdb/note signed by the Ed25519 key in
// STATE/audit/key (mode 0600; its verifier key is in STATE/audit/key.pub):
//
//	agentbox audit checkpoint v1
//	size 1000
//	head <hex hash of entry 1000>
//	time 2026-01-02T03:04:05Z
//
//	— agentbox-audit <signature>
//
// A writer signs one every [Options.CheckpointEvery] entries and one at
// [Log.Close]. Each is appended to FILE.checkpoints beside the log and to a
// copy in STATE/audit/checkpoints named after the log's absolute path, which
// a sandboxed agent can neither read nor write. [Verify] checks the chain and
// every checkpoint it finds in either place, so that an edited, deleted,
// reordered or inserted entry, a truncated log, or a log rewritten and
// re-chained without the key is reported with the first entry that is bad.
// A line cut short by a writer that crashed mid-append is reported as a torn
// tail, not as tampering; the next writer that opens the file removes it and
// logs an alert event saying so. A last line lacking its newline counts as
// an entry only when it is the chain's next one, hash right and linked;
// [Verify], [Query] and the writers apply that one rule, so that Query
// never lists a line Verify took for a torn one.
//
// Two changes leave a chain that any later checkpoint would sign, so the
// writer that sees them says so in the log, where the next checkpoint
// covers its words: a writer that opens the log while no other writer has
// it (no other holds the writers' lock, or no other has its mark of a live
// writer in the state directory, where only the user may write) logs an
// audit.unsigned_tail alert for entries past the last signed checkpoint (a
// writer killed before signing, or entries added without the key), which
// Verify repeats as a warning; a writer that finds the last entry it wrote
// or read gone from where it was, or the file shorter, logs
// audit.changed_under_writer, which Verify reports as tampering
// (KindWitnessed), however many alerts come before it. A writer whose
// writes failed logs audit.write_failed, with how many events the log
// lacks, when a write succeeds again (a warning in Verify). Entries
// appended while other writers have the log open are taken as theirs.
//
// An edit, deletion, reordering or insertion that leaves the chain broken is
// pinned to its entry. One hidden by re-chaining (recomputing every later
// hash, which needs no key) is caught by the first checkpoint after it and
// pinned to the entries since the previous checkpoint.
//
// # Rotation
//
// Because the state directory keeps a copy of every checkpoint, a log moved
// away (or deleted, or truncated) by hand leaves a path whose checkpoints
// say a longer log existed: [Open] refuses to continue or restart the chain
// there (ErrLogShrunk), since the new log and the old one would both fail
// Verify. [Rotate], which needs the key, is the way: it signs the head,
// moves the log, its checkpoints and the state directory's copy to the new
// name, and leaves a signed record, after the line
//
//	agentbox audit rotation v1
//
// in the state directory's copy for the old path, of the size and head the
// chain there was closed at and where it went. Both logs then verify, and
// Verify of the new one lists the rotation. Every Log holds a shared
// flock(2) on the file FILE.lock beside the log from Open to Close (taken
// before it opens the log); Rotate takes it exclusively without waiting
// and refuses a log a writer has open (ErrLogInUse), which would go on
// writing to the moved file, while a writer that opens the log during a
// rotation waits for it, for up to 30 seconds: Open fails, naming the lock
// file, when the lock stays held exclusively longer (by a rotation of a
// very long log, or by any process that can open the lock file).
//
// # Durability and files
//
// Append returns once its event is fsynced; concurrent Appends share one
// fsync (group commit, see SyncMode). Close fsyncs and signs, so everything
// appended is on disk and covered by a checkpoint when it returns. Logs and
// checkpoint files are created with mode 0600 and never written through a
// symbolic link. The log may be read by Verify and Query while writers
// append.
package audit
