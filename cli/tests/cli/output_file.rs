//! Output files (`build -o`, `merge -o`): only regular files are replaced, symbolic links are
//! followed, and no temporary file is left behind, whatever stops the program.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::process::Stdio;

use crate::support::{fails, path, run, scratch, succeeded, temporaries};

#[cfg(unix)]
use crate::support::{file_type, make_fifo};

/// Only regular files are replaced: a FIFO, a device, a socket, a directory stay as they are,
/// with an error that says what they are, before any input is read.
#[cfg(unix)]
#[test]
fn output_refuses_non_regular_targets_and_leaves_them() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("output_targets");
    let filter = path(&dir, "f.sbf");
    succeeded(run(
        &["build", "-n", "10", "-p", "0.1", "-o", &filter],
        b"a\n",
    ));
    let fifo = path(&dir, "fifo");
    make_fifo(&fifo);
    // Standard input is left open: the check must come before reading it.
    let child = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
        .args(["build", "-n", "10", "-p", "0.1", "-o", &fifo])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = child.wait_with_output().unwrap();
    fails(output, "it is a FIFO (named pipe), not a regular file");
    assert!(file_type(&fifo).is_fifo());
    fails(
        run(&["merge", &filter, &filter, "-o", &fifo], b""),
        "it is a FIFO",
    );
    assert!(file_type(&fifo).is_fifo());

    // A character device (a copy of /dev/null's numbers, made here when running as root).
    let device = path(&dir, "device");
    if Command::new("mknod")
        .args([&device, "c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
    {
        fails(
            run(&["build", "-n", "10", "-p", "0.1", "-o", &device], b"a\n"),
            "it is a character device",
        );
        assert!(file_type(&device).is_char_device());
    }
    // A socket.
    let socket = path(&dir, "socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    fails(
        run(&["build", "-n", "10", "-p", "0.1", "-o", &socket], b"a\n"),
        "it is a socket",
    );
    assert!(file_type(&socket).is_socket());

    // Directories, named plainly or with a trailing slash, and paths ending in a slash.
    let sub = path(&dir, "sub");
    std::fs::create_dir(&sub).unwrap();
    for target in [sub.clone(), format!("{sub}/"), path(&dir, "new/")] {
        let output = run(&["build", "-n", "10", "-p", "0.1", "-o", &target], b"a\n");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        fails(output, "directory");
        assert!(!stderr.contains("Not a directory"), "{stderr}");
    }
    assert!(Path::new(&sub).is_dir());
    assert!(!Path::new(&path(&dir, "new")).exists());
    // Nothing was left behind.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert!(!names.iter().any(|name| name.contains(".tmp")), "{names:?}");
}

/// `-o link` writes the file the link points to and keeps the link; a link to something that
/// is not a regular file, or to nothing, is refused.
#[cfg(unix)]
#[test]
fn output_through_a_symlink_replaces_its_target() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
    let dir = scratch("output_symlink");
    let target = path(&dir, "target.sbf");
    succeeded(run(
        &["build", "-n", "10", "-p", "0.1", "-o", &target],
        b"a\n",
    ));
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let link = path(&dir, "link.sbf");
    symlink(&target, &link).unwrap();
    succeeded(run(
        &["build", "-n", "10", "-p", "0.1", "-o", &link],
        b"b\n",
    ));
    assert!(file_type(&link).is_symlink(), "the link is kept");
    assert_eq!(succeeded(run(&["query", &target, "a", "b"], b"")), b"b\n");
    let mode = std::fs::metadata(&target).unwrap().permissions().mode();
    assert_eq!(
        mode & 0o777,
        0o640,
        "the replaced file keeps its permissions"
    );
    // merge too, and through a relative link.
    let relative = path(&dir, "relative.sbf");
    symlink("target.sbf", &relative).unwrap();
    succeeded(run(&["merge", &target, &target, "-o", &relative], b""));
    assert!(file_type(&relative).is_symlink());
    assert_eq!(succeeded(run(&["query", &target, "a", "b"], b"")), b"b\n");

    let fifo = path(&dir, "fifo");
    make_fifo(&fifo);
    let to_fifo = path(&dir, "to-fifo");
    symlink(&fifo, &to_fifo).unwrap();
    fails(
        run(&["build", "-n", "10", "-p", "0.1", "-o", &to_fifo], b"a\n"),
        "a symbolic link to",
    );
    assert!(file_type(&fifo).is_fifo() && file_type(&to_fifo).is_symlink());
    let dangling = path(&dir, "dangling");
    symlink(path(&dir, "nowhere"), &dangling).unwrap();
    fails(
        run(&["build", "-n", "10", "-p", "0.1", "-o", &dangling], b"a\n"),
        "symbolic link whose target cannot be followed",
    );
    assert!(file_type(&dangling).is_symlink());
    assert!(!Path::new(&path(&dir, "nowhere")).exists());
}

/// A `build` stopped by SIGTERM or SIGINT while it reads its input removes its temporary file
/// and dies of the signal; one whose input fails leaves none either.
#[cfg(unix)]
#[test]
fn interrupted_build_leaves_no_temporary_file() {
    use std::os::unix::process::ExitStatusExt;
    use std::time::{Duration, Instant};
    let dir = scratch("output_signals");
    for (signal, number) in [("TERM", 15), ("INT", 2)] {
        let out = path(&dir, "slow.sbf");
        let mut child = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
            .args(["build", "-n", "1000", "-p", "0.01", "-o", &out])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Keys trickle in; the temporary file exists while the input is read.
        let mut stdin = child.stdin.take().unwrap();
        let start = Instant::now();
        while temporaries(&dir).is_empty() {
            stdin.write_all(b"key\n").unwrap();
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no temporary file appeared while the input was read"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let status = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        let status = child.wait().unwrap();
        drop(stdin);
        assert_eq!(status.signal(), Some(number), "{status:?}");
        assert_eq!(temporaries(&dir), Vec::<String>::new(), "SIG{signal}");
        assert!(!Path::new(&out).exists());
    }
    // Killed while writing a 24 MB filter (empty input): SIGTERM as soon as the temporary file
    // appears. Before the fix that file was left behind; if the build wins the race and
    // finishes first, the complete filter is there and no temporary file either.
    let out = path(&dir, "large.sbf");
    let mut child = Command::new(env!("CARGO_BIN_EXE_splitbloom"))
        .args([
            "build", "-n", "20000000", "-p", "0.01", "--force", "-o", &out,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while temporaries(&dir).is_empty() && child.try_wait().unwrap().is_none() {
        assert!(start.elapsed() < Duration::from_secs(20));
        std::thread::sleep(Duration::from_millis(1));
    }
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    assert!(
        status.signal() == Some(15) || status.success(),
        "{status:?}"
    );
    assert_eq!(temporaries(&dir), Vec::<String>::new(), "while writing");
    let _ = std::fs::remove_file(&out);

    // An input error after the temporary file was made.
    fails(
        run(
            &[
                "build",
                "-n",
                "10",
                "-p",
                "0.1",
                "--max-key-bytes",
                "3",
                "-o",
                &path(&dir, "x.sbf"),
            ],
            b"abc\nabcd\n",
        ),
        "longer than --max-key-bytes 3",
    );
    assert_eq!(temporaries(&dir), Vec::<String>::new());
}
