//! The membership cache's nodes, by slot number, in pages of [`PAGE`] slots: growing never copies
//! the nodes into a buffer twice the size, which would leave the old one as a hole in wasm's
//! linear memory (memory only grows there). Measured (issue 32, 200,000 cached contexts): about
//! 10 B per cached context less wasm memory than one `Vec`. Slots stay dense: removing one moves
//! the last node into its place.

/// Slots in a page: 32 KiB of 32-byte nodes.
pub const PAGE: usize = 1024;

pub struct PagedSlots<T> {
    pages: Vec<Vec<T>>,
    len: usize,
    /// The most slots there will ever be (pages are not made larger than this needs).
    capacity: usize,
}

impl<T> PagedSlots<T> {
    pub fn new(capacity: usize) -> Self {
        PagedSlots { pages: Vec::new(), len: 0, capacity }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, slot: usize) -> Option<&T> {
        self.pages.get(slot / PAGE)?.get(slot % PAGE)
    }

    pub fn get_mut(&mut self, slot: usize) -> Option<&mut T> {
        self.pages.get_mut(slot / PAGE)?.get_mut(slot % PAGE)
    }

    /// Appends `value`; its slot is the old length.
    pub fn push(&mut self, value: T) {
        let page = match self.pages.last_mut() {
            Some(page) if page.len() < PAGE => page,
            _ => {
                let room = self.capacity.saturating_sub(self.len).clamp(1, PAGE);
                self.pages.push(Vec::with_capacity(room));
                match self.pages.last_mut() {
                    Some(page) => page,
                    None => return,
                }
            }
        };
        page.push(value);
        self.len += 1;
    }

    /// Takes the value out of `slot`; the last value moves into it.
    pub fn swap_remove(&mut self, slot: usize) -> Option<T> {
        if slot >= self.len {
            return None;
        }
        let last = self.pages.last_mut()?.pop()?;
        if self.pages.last().is_some_and(Vec::is_empty) {
            self.pages.pop();
        }
        self.len -= 1;
        if slot == self.len {
            return Some(last);
        }
        self.get_mut(slot).map(|place| std::mem::replace(place, last))
    }

    /// Drops every value and frees the pages.
    pub fn clear(&mut self) {
        self.pages = Vec::new();
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_stay_dense_across_pages() {
        let mut slots = PagedSlots::new(usize::MAX);
        for i in 0..(PAGE * 2 + 5) {
            slots.push(i);
        }
        assert_eq!(slots.len(), PAGE * 2 + 5);
        assert_eq!(slots.get(PAGE + 1), Some(&(PAGE + 1)));
        // The last value moves into the removed slot, across pages.
        assert_eq!(slots.swap_remove(3), Some(3));
        assert_eq!(slots.get(3), Some(&(PAGE * 2 + 4)));
        for _ in 0..5 {
            slots.swap_remove(0);
        }
        assert_eq!(slots.len(), PAGE * 2 - 1);
        assert_eq!(slots.pages.len(), 2, "an emptied page is freed");
        assert_eq!(slots.swap_remove(slots.len()), None);
        assert_eq!(slots.swap_remove(slots.len() - 1), Some(PAGE * 2 - 2));
        slots.clear();
        assert!(slots.is_empty());
        assert_eq!(slots.get(0), None);
    }

    #[test]
    fn pages_are_no_larger_than_the_capacity_needs() {
        let mut slots = PagedSlots::new(3);
        slots.push('a');
        assert_eq!(slots.pages.first().map(Vec::capacity), Some(3));
        assert_eq!(slots.swap_remove(0), Some('a'));
        assert!(slots.pages.is_empty());
    }
}
