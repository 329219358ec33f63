// A file a command writes (e.g. `--trace FILE`) without ever damaging what the path names:
//   "-"                  standard output;
//   the file standard output (or error) goes to, e.g. /dev/stdout
//                        written to that stream, before the report;
//   a FIFO, a character device, anything else that is not a regular file (after following
//                        symbolic links), a path under /dev/ or /proc/
//                        opened and written in place, never replaced;
//   a regular file, or a path that does not exist yet
//                        written to a temporary file in the same directory and renamed over
//                        the target at commit() (through a symbolic link: the file it points
//                        to is replaced, the link stays); until then an existing file keeps its
//                        content, and a failed or interrupted run (SIGINT, SIGTERM, SIGHUP)
//                        removes the temporary file.
// A path that is one of the command's input files, or a directory, is refused before the run.
#pragma once

#include <atomic>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace numasim {

class OutputFile {
  public:
    // `option` names the path in errors ("--trace"); `inputs` are the files the command reads
    // (scenario, machine file), which are never overwritten.
    OutputFile(std::string option, std::string path, const std::vector<std::string>& inputs);
    ~OutputFile();
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    std::FILE* get() const { return f_; }
    // Flushes and, for a regular file, renames the temporary file over the target.
    void commit() {
        finish();
        publish();
    }
    // commit() in two steps, so that a set of files can be written out completely before any
    // appears under its final name: finish() flushes and closes, and throws if any byte could
    // not be written (disk full, I/O error; the temporary file is then removed); publish()
    // renames.
    void finish();
    void publish();
    // The file publish() replaced; empty for one written in place (a FIFO, /dev/null, stdout).
    const std::string& renamed_to() const { return renamed_to_; }

  private:
    // Removes the temporary file and throws the error of a failed write or rename.
    [[noreturn]] void fail_write(int err);

    std::string option_;  // for messages
    std::string path_;    // as given
    std::string target_;  // the file a rename replaces (symbolic links resolved)
    std::string tmp_;     // empty when written in place
    std::FILE* f_ = nullptr;
    bool owned_ = false;  // f_ is ours to close (not stdout)
    int slot_ = -1;       // in the table of temporary files removed on a signal
    bool finished_ = false;
    std::string renamed_to_;
};

// Whether `filename` (without its directory) is the name of an OutputFile's temporary file,
// which a killed process (SIGKILL) leaves behind.
bool is_output_temp_name(std::string_view filename);

// For commands that write many files over a long time (sweep): while one is alive, the first
// SIGINT only raises requested(), so that the caller starts no new work and the work under way
// finishes and commits its files; a second SIGINT removes the temporary files and ends the
// process, as SIGTERM does. One handler serves both, so neither replaces the other's.
class StopOnFirstSigint {
  public:
    StopOnFirstSigint();
    ~StopOnFirstSigint();
    StopOnFirstSigint(const StopOnFirstSigint&) = delete;
    StopOnFirstSigint& operator=(const StopOnFirstSigint&) = delete;

    const std::atomic<bool>& requested() const;
};

// A function that a signal ending the process (SIGTERM, SIGHUP, an aborting SIGINT) calls before
// the temporary files are removed, to say on `fd` (standard error) what the process was doing;
// it may call async-signal-safe functions only. nullptr: none.
using SignalNote = void (*)(int fd);
void set_signal_note(SignalNote note);

// Removes the temporary files of the OutputFiles not yet published, from a handler of a fatal
// signal that ends the process otherwise (a crash inside a policy plugin): async-signal-safe.
void remove_output_temps_on_fatal_signal();

// `text` as the whole content of `path`, through an OutputFile (the same rules and errors).
void write_output_file(const std::string& option, const std::string& path, std::string_view text,
                       const std::vector<std::string>& inputs);

}  // namespace numasim
