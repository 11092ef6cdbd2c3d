// The entry script of pages with <one-date> placeholders: date fields of record forms (the server adds it to them).
import '@lwc/synthetic-shadow';
import DateInput from 'one/dateInput';
import { mountEach } from 'one/mount';

mountEach('one-date', DateInput);
