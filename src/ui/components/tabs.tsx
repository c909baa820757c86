/**
 * Tabs (settings' tab list, a subscriber's sections): each tab is a link (`?tab=<id>` or a page URL),
 * so without JavaScript choosing a tab loads the page with that panel shown. main.js turns them into
 * ARIA tabs in place (arrow keys, Home/End; no reload) when the panels are all on the page
 * (`data-tabs="inline"`). Hidden panels stay in the DOM, so a form spanning tabs still sends every field.
 */
import type { ComponentChildren, VNode } from 'preact';

/** One tab. */
export interface Tab {
  id: string;
  label: string;
  href: string;
  cy?: string;
}

/** Props of {@link Tabs}. */
export interface TabsProps {
  /** Prefix of the tab and panel ids. */
  id: string;
  label: string;
  tabs: readonly Tab[];
  selected: string;
  /** True when every panel is rendered on the page (switching needs no request). */
  inline?: boolean;
}

/** The tab list. */
export function Tabs(p: TabsProps): VNode {
  return (
    <div class="tabs" role="tablist" aria-label={p.label} data-tabs={p.inline ? 'inline' : 'links'}>
      {p.tabs.map((tab) => {
        const on = tab.id === p.selected;
        return (
          <a role="tab" id={`${p.id}-tab-${tab.id}`} href={tab.href} aria-selected={on ? 'true' : 'false'} aria-controls={p.inline ? `${p.id}-panel-${tab.id}` : undefined} tabindex={on ? 0 : -1} data-cy={tab.cy}>
            {tab.label}
          </a>
        );
      })}
    </div>
  );
}

/** One panel; `hidden` unless selected. */
export function TabPanel({ tabsId, id, selected, children }: { tabsId: string; id: string; selected: boolean; children: ComponentChildren }): VNode {
  return (
    <section role="tabpanel" id={`${tabsId}-panel-${id}`} aria-labelledby={`${tabsId}-tab-${id}`} hidden={!selected || undefined} tabindex={0} class="tab-panel">
      {children}
    </section>
  );
}
