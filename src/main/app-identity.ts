/**
 * The app's identity where the OS needs it to match the installer's. Windows shows a toast
 * notification only for an Application User Model ID that a Start menu shortcut carries, and
 * electron-builder's NSIS installer gives that shortcut the `appId` of electron-builder.yml
 * (Electron's notifications guide, "Windows"). A unit test keeps the two equal.
 */
export const APP_ID = 'dev.verified-updater.desktop';
