; Custom NSIS script for electron-builder 26.17 (templates/nsis, "Custom NSIS script").
; docs/DESKTOP.md "Packaging": per-user install, and an uninstall that offers to remove secrets.

; Per-user only: skips the "for me / for all users" page (multiUserUi.nsh customInstallMode).
!macro customInstallMode
  StrCpy $isForceCurrentInstall "1"
!macroend

; The app's data (userData) holds settings.json with the machine key sealed by safeStorage,
; the key safeStorage seals it with (Local State), the demo registry's data directory with its
; private signing key, and the logs. An update runs this uninstaller with --updated: keep all.
; A person uninstalling is asked (default No); a silent uninstall keeps the data unless it is
; given --delete-app-data, as electron-builder's own uninstaller does.
!macro customUnInstall
  ${ifNot} ${isUpdated}
    MessageBox MB_YESNO|MB_ICONQUESTION|MB_DEFBUTTON2 \
      "Also remove your Verified Updater settings, its stored machine key, the demo registry's keys and the logs?$\r$\n$\r$\nChoose No to keep them for a later reinstall." \
      /SD IDNO IDNO keepAppData
      SetShellVarContext current
      RMDir /r "$APPDATA\${APP_FILENAME}"
      !ifdef APP_PRODUCT_FILENAME
        RMDir /r "$APPDATA\${APP_PRODUCT_FILENAME}"
      !endif
      !ifdef APP_PACKAGE_NAME
        RMDir /r "$APPDATA\${APP_PACKAGE_NAME}"
      !endif
    keepAppData:
  ${endIf}
!macroend
