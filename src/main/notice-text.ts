/**
 * A native notification's words (docs/DESKTOP.md "Notifications"): the shape every notice of
 * the shell shares, the update outcomes' as well, so the shell's modules need no import of the
 * application layer's notifier to speak of one.
 */
export interface NoticeText {
  readonly title: string;
  readonly body: string;
}
