// The entry script of pages with <one-table-find> placeholders (an Object Manager object's lists).
import '@lwc/synthetic-shadow';
import TableFind from 'one/tableFind';
import { mountEach } from 'one/mount';

mountEach('one-table-find', TableFind);
