# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: 2026 The streamt authors

# Run by `cmake --install` (install(CODE) in CMakeLists.txt here), so that the
# paths written into a file are those of the prefix being installed to, even
# when `cmake --install --prefix P` overrides the configured prefix (CPack's
# .deb installs with the prefix /usr and a DESTDIR, and gets /usr's paths).
#
# streamt_install_configured(SOURCE DESTINATION BINDIR SYSCONFDIR) copies
# SOURCE to PREFIX/DESTINATION with @CMAKE_INSTALL_FULL_BINDIR@ and
# @CMAKE_INSTALL_FULL_SYSCONFDIR@ replaced by the absolute directories of the
# install-time prefix. BINDIR and SYSCONFDIR are GNUInstallDirs' configured
# CMAKE_INSTALL_BINDIR and CMAKE_INSTALL_SYSCONFDIR (relative, or absolute as
# given), made absolute by GNUInstallDirs' rules: the prefix / or /usr has
# /etc, a prefix /opt/X has /etc/opt/X, any other prefix P has P/etc
# (/usr/local/etc); binaries are in PREFIX/bin (/usr/bin for the prefix /).

function(_streamt_full_dir out dir kind prefix)
  if(IS_ABSOLUTE "${dir}")
    set(full "${dir}")
  elseif(kind STREQUAL "SYSCONFDIR" AND (prefix STREQUAL "/" OR prefix STREQUAL "/usr"))
    set(full "/${dir}")
  elseif(kind STREQUAL "SYSCONFDIR" AND prefix MATCHES "^/opt/" AND NOT prefix MATCHES "^/opt/homebrew/")
    set(full "/${dir}${prefix}")
  elseif(prefix STREQUAL "/")
    if(NOT dir MATCHES "^usr/")
      set(dir "usr/${dir}")
    endif()
    set(full "/${dir}")
  else()
    set(full "${prefix}/${dir}")
  endif()
  set(${out} "${full}" PARENT_SCOPE)
endfunction()

function(streamt_install_configured source destination bindir sysconfdir)
  set(prefix "${CMAKE_INSTALL_PREFIX}")
  # systemd wants absolute paths. A relative --prefix is relative to the
  # working directory (file(INSTALL) takes it so too), which is what an
  # install script resolves relative paths against.
  get_filename_component(prefix "${prefix}" ABSOLUTE)
  string(REGEX REPLACE "(.)/+$" "\\1" prefix "${prefix}")
  _streamt_full_dir(CMAKE_INSTALL_FULL_BINDIR "${bindir}" BINDIR "${prefix}")
  _streamt_full_dir(CMAKE_INSTALL_FULL_SYSCONFDIR "${sysconfdir}" SYSCONFDIR "${prefix}")
  if(CMAKE_INSTALL_FULL_BINDIR MATCHES "[ \t]" OR CMAKE_INSTALL_FULL_SYSCONFDIR MATCHES "[ \t]")
    message(WARNING "streamt: the install prefix '${prefix}' holds whitespace, at which "
      "systemd splits ExecStart=: the installed streamt@.service will not start")
  endif()
  get_filename_component(name "${source}" NAME)
  # A directory per destination: an install to another prefix (or DESTDIR)
  # at the same time can't hand this one its file.
  string(MD5 key "$ENV{DESTDIR}${prefix}")
  set(configured "${STREAMT_CONFIGURED_DIR}/${key}/${name}")
  configure_file("${source}" "${configured}" @ONLY)
  # file(INSTALL) honours DESTDIR and adds the file to install_manifest.txt.
  file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/${destination}" TYPE FILE FILES "${configured}")
endfunction()
