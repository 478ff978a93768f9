/**
 * How the tray shows its menu, per platform (docs/DESKTOP.md "Lifecycle"). On macOS a menu
 * set with Tray.setContextMenu opens on the left click too, which must toggle the window;
 * there the menu is popped up on right click only. Windows opens a set context menu on right
 * click only. Many Linux desktops (StatusNotifierItem) show nothing but the set menu and may
 * not report clicks at all, so there the menu is set.
 */
export type TrayMenuPolicy = 'set-context-menu' | 'pop-up-on-right-click';

export function trayMenuPolicy(platform: NodeJS.Platform): TrayMenuPolicy {
  return platform === 'darwin' ? 'pop-up-on-right-click' : 'set-context-menu';
}
