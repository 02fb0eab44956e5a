//! Output files (`build -o`, `merge -o`, the filter file `remove` rewrites): written whole or
//! not at all, never over something that is not a regular file, never leaving a temporary file
//! behind.
//!
//! * The target is checked **before** any input is read: it may be missing, or a regular file.
//!   A directory (or a path ending in `/`), FIFO, socket or device is refused with an error;
//!   replacing it would destroy it (`-o /dev/full` as root would turn the device into a file).
//! * **Symbolic links are followed**: `-o link` writes the file the link points to (replacing
//!   it atomically, next to it) and leaves the link in place, as `> link` in a shell would. The
//!   link's final target must itself be a regular file; a dangling link is refused.
//! * The filter goes to a temporary file `NAME.tmpPID` next to the target, which is flushed and
//!   `fsync`ed, renamed over the target, and then the directory is `fsync`ed, so after a crash
//!   the path holds the old file or the complete new one. A replaced file keeps its permission
//!   bits (not its owner, nor its other hard links: the rename makes a new file).
//! * The temporary file is removed on every error path, when standard output is closed, and on
//!   `SIGINT`, `SIGTERM` and `SIGHUP` (after which the process still dies of that signal).

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

/// The temporary file being written, if any: what a signal or a closed pipe removes.
static PENDING: Mutex<Option<PathBuf>> = Mutex::new(None);

fn pending() -> MutexGuard<'static, Option<PathBuf>> {
    PENDING
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes the temporary output file, if one is being written.
pub fn remove_pending() {
    if let Some(temporary) = pending().take() {
        let _ = fs::remove_file(temporary);
    }
}

/// Starts, once, a thread that removes the temporary file when the process is asked to stop,
/// then lets the signal's default action end the process (so the parent sees the signal).
#[cfg(unix)]
fn clean_up_on_signals() -> Result<(), String> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    static START: Once = Once::new();
    let mut result = Ok(());
    START.call_once(|| {
        result = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])
            .map_err(|error| format!("cannot install the signal handlers: {error}"))
            .map(|mut signals| {
                std::thread::spawn(move || {
                    if let Some(signal) = signals.forever().next() {
                        // Holding the lock until the process ends: a rename in progress
                        // finishes first, and none starts after the removal.
                        let mut temporary = pending();
                        if let Some(path) = temporary.take() {
                            let _ = fs::remove_file(path);
                        }
                        let _ = signal_hook::low_level::emulate_default_handler(signal);
                        std::process::exit(128 + signal);
                    }
                });
            });
    });
    result
}

#[cfg(not(unix))]
fn clean_up_on_signals() -> Result<(), String> {
    Ok(())
}

/// What a path names, for error messages.
fn describe(file_type: fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if file_type.is_socket() {
            return "a socket";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

/// The file to write for `-o path`: `path` itself, or the final target of a symbolic link;
/// errors unless it is missing or a regular file.
fn resolve(path: &Path) -> Result<(PathBuf, Option<fs::Permissions>), String> {
    let name = path.display();
    let refuse = |what: &str| {
        format!(
            "cannot write {name}: it is {what}, not a regular file; give -o a file name (splitbloom replaces only regular files)"
        )
    };
    if path.as_os_str().is_empty() {
        return Err("cannot write an output file with an empty name".to_owned());
    }
    if path.as_os_str().as_encoded_bytes().ends_with(b"/") {
        return Err(refuse("a directory name (it ends with '/')"));
    }
    let metadata = match fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Ok((path.to_owned(), None));
        }
        Err(error) => return Err(format!("cannot write {name}: {error}")),
    };
    let (target, metadata) = if metadata.file_type().is_symlink() {
        let target = fs::canonicalize(path).map_err(|error| {
            format!(
                "cannot write {name}: it is a symbolic link whose target cannot be followed ({error}); remove the link or create its target first"
            )
        })?;
        let metadata = fs::metadata(&target)
            .map_err(|error| format!("cannot write {name}: {}: {error}", target.display()))?;
        (target, metadata)
    } else {
        (path.to_owned(), metadata)
    };
    if !metadata.is_file() {
        let what = describe(metadata.file_type());
        return Err(if target == path {
            refuse(what)
        } else {
            refuse(&format!(
                "a symbolic link to {}, which is {what}",
                target.display()
            ))
        });
    }
    Ok((target, Some(metadata.permissions())))
}

/// An output file being prepared; [`OutputFile::commit`] puts it in place, dropping it
/// without a commit removes the temporary file.
pub struct OutputFile {
    /// The path as given (for messages).
    name: String,
    /// The file the rename replaces (symbolic links resolved).
    target: PathBuf,
    temporary: PathBuf,
    file: Option<File>,
}

impl OutputFile {
    /// Checks `path` and creates the temporary file next to its target.
    pub fn create(path: &Path) -> Result<OutputFile, String> {
        let name = path.display().to_string();
        let (target, permissions) = resolve(path)?;
        clean_up_on_signals()?;
        let mut file_name = target.file_name().unwrap_or_default().to_os_string();
        file_name.push(format!(".tmp{}", std::process::id()));
        let temporary = target.with_file_name(file_name);
        // Registered before it exists: a signal between the two finds nothing to remove, or
        // removes the new file; never leaves it.
        *pending() = Some(temporary.clone());
        let file = match File::options()
            .write(true)
            .create_new(true)
            .open(&temporary)
        {
            Ok(file) => file,
            Err(error) => {
                // Not ours to remove (e.g. it already existed).
                *pending() = None;
                return Err(format!("cannot write {name}: {error}"));
            }
        };
        let output = OutputFile {
            name,
            target,
            temporary,
            file: Some(file),
        };
        if let (Some(permissions), Some(file)) = (permissions, &output.file) {
            file.set_permissions(permissions)
                .map_err(|error| output.error(&error))?;
        }
        Ok(output)
    }

    fn error(&self, error: &io::Error) -> String {
        format!("cannot write {}: {error}", self.name)
    }

    /// Writes the content with `write`, syncs it, renames it over the target and syncs the
    /// directory.
    pub fn commit(
        mut self,
        write: impl FnOnce(&mut BufWriter<&File>) -> io::Result<()>,
    ) -> Result<(), String> {
        let Some(file) = self.file.take() else {
            return Err(format!("cannot write {}: no temporary file", self.name));
        };
        let result = (|| {
            let mut writer = BufWriter::with_capacity(1 << 20, &file);
            write(&mut writer)?;
            writer.flush()?;
            drop(writer);
            file.sync_all()?;
            drop(file);
            // The target may have been replaced by something else since it was checked.
            resolve_again(&self.target)?;
            let mut temporary = pending();
            fs::rename(&self.temporary, &self.target)?;
            *temporary = None;
            drop(temporary);
            let directory = match self.target.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent,
                _ => Path::new("."),
            };
            File::open(directory)?.sync_all()
        })();
        result.map_err(|error| self.error(&error))
    }
}

/// Errors if `target` now exists as something other than a regular file.
fn resolve_again(target: &Path) -> io::Result<()> {
    match fs::symlink_metadata(target) {
        Ok(metadata) if !metadata.is_file() => Err(io::Error::other(format!(
            "it became {} while the filter was built",
            describe(metadata.file_type())
        ))),
        _ => Ok(()),
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        let mut temporary = pending();
        if temporary.as_ref() == Some(&self.temporary) {
            let _ = fs::remove_file(&self.temporary);
            *temporary = None;
        }
    }
}
